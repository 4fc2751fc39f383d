package auth

import "testing"

// TestBearerTokenMessages: the header values BearerToken admits and the 401
// message of each it refuses.
func TestBearerTokenMessages(t *testing.T) {
	cases := []struct {
		values []string
		msg    string
	}{
		{nil, MsgMissingHeader},
		{[]string{""}, MsgMissingHeader},
		{[]string{"Bearer abc.def-ghi_~+/="}, ""},
		{[]string{"Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"}, ""},
		{[]string{"Bearer"}, MsgEmptyToken},
		{[]string{"Bearer "}, MsgEmptyToken},
		{[]string{"Bearer   "}, MsgEmptyToken},
		{[]string{"bearer abc"}, ""},
		{[]string{"BEARER abc"}, ""},
		{[]string{"Bearerabc"}, MsgBadFormat},
		{[]string{"Basic dXNlcjpw"}, MsgBadFormat},
		{[]string{"Bearer a b"}, MsgBadFormat},
		{[]string{"Bearer a\tb"}, MsgBadFormat},
		{[]string{"Bearer abc", "Bearer def"}, MsgBadFormat},
	}
	for _, tc := range cases {
		_, _, msg := BearerToken(tc.values)
		if msg != tc.msg {
			t.Errorf("BearerToken(%q) = %q, want %q", tc.values, msg, tc.msg)
		}
	}
}

// TestPaddingOnlyBearer: "Bearer =====" is not a well-formed token (it
// passed).
func TestPaddingOnlyBearer(t *testing.T) {
	for _, v := range []string{"Bearer =====", "Bearer =", "Bearer a=b"} {
		if _, reason, _ := BearerToken([]string{v}); reason != "invalid_format" {
			t.Errorf("%q: reason %q, want invalid_format", v, reason)
		}
	}
	for _, v := range []string{"Bearer abc==", "Bearer a-b.c_d~e+f/g="} {
		if _, reason, msg := BearerToken([]string{v}); reason != "" {
			t.Errorf("%q refused: %s", v, msg)
		}
	}
}
