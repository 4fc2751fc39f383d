package zonemodel

import (
	"errors"
	"strings"
	"testing"
)

// TestBadEscapes: a \DDD escape that named's master-file parser refuses
// (named-checkzone 9.18: "syntax error" in character-strings, "bad
// escape" in names) is refused, for every type whose data holds
// character-strings or names; complete escapes are kept as the bytes they
// name.
func TestBadEscapes(t *testing.T) {
	refused := []struct{ typ, value, want string }{
		{"TXT", `"TEST\1" "TEST2"`, `incomplete escape \1`},
		{"TXT", `"a\12"`, `incomplete escape \12`},
		{"TXT", `"a\12x"`, `incomplete escape \12`},
		{"TXT", `"a\1b"`, `incomplete escape \1`},
		{"TXT", `"a\256"`, `escape \256, out of range`},
		{"TXT", `"a\999"`, `escape \999, out of range`},
		{"TXT", `"ok" "a\\\1"`, `incomplete escape \1`},
		{"SPF", `"v=spf1 \1"`, `incomplete escape \1`},
		{"HINFO", `"cpu\12" "os"`, `incomplete escape \12`},
		{"HINFO", `"cpu" "os\256"`, `out of range`},
		{"NAPTR", `100 10 "S\1" "SIP+D2U" "" _sip._udp.example.com.`, `incomplete escape \1`},
		{"NAPTR", `100 10 "S" "SIP+D2U" "!^.*$!sip:a\12@b!" .`, `incomplete escape \12`},
		{"CAA", `0 issue "ca\1.example.net"`, `incomplete escape \1`},
		{"CAA", `0 issue "ca\256"`, `out of range`},
		{"URI", `10 1 "http://a\1"`, `incomplete escape \1`},
		{"CNAME", `a\1.example.com.`, `incomplete escape \1`},
		{"CNAME", `a\256.example.com.`, `out of range`},
		{"SVCB", `1 . alpn="h\1"`, `incomplete escape \1`},
	}
	for _, c := range refused {
		rr, err := ParseRecord("example.com", 300, "x", c.typ, c.value, nil, nil, "", "value")
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s %s: accepted as %v (err %v)", c.typ, c.value, rr, err)
			continue
		}
		if len(ve.Problems) != 1 || ve.Problems[0].Field != "value" || !strings.Contains(ve.Problems[0].Message, c.want) {
			t.Errorf("%s %s: problems %v, want value: ...%s...", c.typ, c.value, ve.Problems, c.want)
		}
	}

	accepted := []struct{ typ, value, want string }{
		{"TXT", `"valid\000record"`, `"valid\000record"`},
		{"TXT", `"a\255"`, `"a\255"`},
		{"TXT", `"a\1234"`, `"a{4"`},
		{"TXT", `"a\065"`, `"aA"`},
		{"TXT", `"a\\1"`, `"a\\1"`},
		{"TXT", `"a\"1"`, `"a\"1"`},
		{"TXT", `TEST\1`, `"TEST\\1"`}, // literal text: the backslash is a byte
		{"HINFO", `"cpu\065" "os"`, `"cpuA" "os"`},
		{"CAA", `0 issue "ca\065.example.net"`, `0 issue "caA.example.net"`},
		{"TYPE65280", `\# 2 abcd`, `\# 2 abcd`},
	}
	for _, c := range accepted {
		rr, err := ParseRecord("example.com", 300, "x", c.typ, c.value, nil, nil, "", "value")
		if err != nil {
			t.Errorf("%s %s: refused: %v", c.typ, c.value, err)
			continue
		}
		if got := RDataText(rr); got != c.want {
			t.Errorf("%s %s: kept as %s, want %s", c.typ, c.value, got, c.want)
		}
	}
}

func TestBadEscape(t *testing.T) {
	for v, bad := range map[string]bool{
		`"TEST\1" "TEST2"`: true, `a\12`: true, `\256`: true, `x\`: false, `\\1`: false,
		`\\\1`: true, `\0001`: false, `\255`: false, `\#`: false, `""`: false,
	} {
		if got := BadEscape(v) != ""; got != bad {
			t.Errorf("BadEscape(%s) = %q, want bad %v", v, BadEscape(v), bad)
		}
	}
}
