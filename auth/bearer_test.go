package auth

import "testing"

// TestBearerSchemeIsCaseInsensitive: the authentication scheme is
// case-insensitive (RFC 9110 §11.1), so "bearer", "BEARER" and "BeArEr"
// carry a token as "Bearer" does; the token itself is kept as sent, and
// a scheme that only starts like Bearer is still refused.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	cases := []struct {
		header, token, msg string
	}{
		{"bearer abc", "abc", ""},
		{"BEARER abc", "abc", ""},
		{"BeArEr AbC", "AbC", ""},
		{"bearer", "", MsgEmptyToken},
		{"BEARER   ", "", MsgEmptyToken},
		{"Bearerabc", "", MsgBadFormat},
		{"Basic abc", "", MsgBadFormat},
		{"bearer\tabc", "", MsgBadFormat},
	}
	for _, c := range cases {
		tok, _, msg := BearerToken([]string{c.header})
		if tok != c.token || msg != c.msg {
			t.Errorf("BearerToken(%q) = %q, %q; want %q, %q", c.header, tok, msg, c.token, c.msg)
		}
	}
}
