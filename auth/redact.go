package auth

import "strings"

// redactMin is the shortest piece of a secret Redact removes.
const redactMin = 8

// Redact returns text with every run of token characters (RFC 6750's
// b64token set) that holds a piece of one of the secrets (redactMin
// characters or more) replaced by "<redacted>". Text from outside (an
// identity provider's or an API's error message) passes through it
// before it reaches a log or a client, so a secret it quotes, whole or
// cut short, goes no further.
func Redact(text string, secrets ...string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(text); {
		if !isTokenChar(text[i]) {
			b.WriteByte(text[i])
			i++
			continue
		}
		j := i
		for j < len(text) && isTokenChar(text[j]) {
			j++
		}
		if run := text[i:j]; holdsPiece(run, secrets) {
			b.WriteString("<redacted>")
			changed = true
		} else {
			b.WriteString(run)
		}
		i = j
	}
	if !changed {
		return text
	}
	return b.String()
}

// holdsPiece reports whether run holds redactMin characters in a row of
// one of the secrets.
func holdsPiece(run string, secrets []string) bool {
	if len(run) < redactMin {
		return false
	}
	for _, s := range secrets {
		if len(s) < redactMin {
			continue
		}
		for k := 0; k+redactMin <= len(run); k++ {
			if strings.Contains(s, run[k:k+redactMin]) {
				return true
			}
		}
	}
	return false
}

func isTokenChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0
}
