package auth

import "testing"

func TestRedact(t *testing.T) {
	const tok = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
	for _, c := range []struct{ in, want string }{
		{"no secret here", "no secret here"},
		{"token " + tok + " refused", "token <redacted> refused"},
		{`token "` + tok[:20] + `…" refused`, `token "<redacted>…" refused`},
		{"short eyJhbGc piece", "short eyJhbGc piece"},
		{"x=" + tok[10:30] + ";", "<redacted>;"},
	} {
		if got := Redact(c.in, tok, ""); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("token abcdefghijkl refused", "abcdefghijkl")
	f.Fuzz(func(t *testing.T, text, secret string) {
		out := Redact(text, secret)
		if len(secret) >= redactMin && holdsPieceAnywhere(out, secret) {
			t.Fatalf("Redact(%q, %q) = %q still holds a piece", text, secret, out)
		}
	})
}

// holdsPieceAnywhere reports whether out holds redactMin characters of
// secret made only of token characters.
func holdsPieceAnywhere(out, secret string) bool {
	for k := 0; k+redactMin <= len(secret); k++ {
		piece := secret[k : k+redactMin]
		ok := true
		for i := 0; i < len(piece); i++ {
			ok = ok && isTokenChar(piece[i])
		}
		if ok && contains(out, piece) {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
