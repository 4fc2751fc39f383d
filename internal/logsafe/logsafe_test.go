package logsafe

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLimit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"curl/8.5.0", "curl/8.5.0"},
		{"", ""},
		{"Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0", "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0"},
		{"caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"},
		{"a\nb", `a\u000ab`},
		{"a\r\n{\"level\":\"error\"}", `a\u000d\u000a{"level":"error"}`},
		{"\x1b[2Jcleared", `\u001b[2Jcleared`},
		{"a\x00b\x7fc\u0085d", `a\u0000b\u007fc\u0085d`},
		{"a\tb", `a\u0009b`},
		{"invoice\u202egpj.exe", `invoice\u202egpj.exe`},
		{"\u2066x\u2069\u200e\u200f\u061c\u200b\ufeff", `\u2066x\u2069\u200e\u200f\u061c\u200b\ufeff`},
		{"line\u2028sep\u2029", `line\u2028sep\u2029`},
		{"nb\u00a0sp", `nb\u00a0sp`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"a\xffb\xc3", `a\xffb\xc3`},
		{`back\slash`, `back\\slash`},
		{`\u202e`, `\\u202e`},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLimitCaps(t *testing.T) {
	long := strings.Repeat("a", 10000)
	got := Text(long)
	if want := strings.Repeat("a", MaxLen) + "...[10000 bytes]"; got != want {
		t.Errorf("Text(10000 a) = %q, want %q", got, want)
	}
	if got := Text(long[:MaxLen]); got != long[:MaxLen] {
		t.Errorf("Text of %d bytes was changed: %q", MaxLen, got)
	}
	// An escape is not cut in the middle, nor is a character.
	s := strings.Repeat("a", MaxLen-3) + "\u202e" + "b"
	if got, want := Text(s), strings.Repeat("a", MaxLen-3)+"...["+strconv.Itoa(len(s))+" bytes]"; got != want {
		t.Errorf("Text(...\\u202e) = %q, want %q", got, want)
	}
	s = strings.Repeat("a", MaxLen-1) + "\u00e9"
	if got, want := Text(s), strings.Repeat("a", MaxLen-1)+"...["+strconv.Itoa(len(s))+" bytes]"; got != want {
		t.Errorf("Text(...é) = %q, want %q", got, want)
	}
	if got := Limit("abcdef", 3); got != "abc...[6 bytes]" {
		t.Errorf("Limit(abcdef, 3) = %q", got)
	}
}

// TestTextDoesNotAllocate: the common case (a plain User-Agent, a
// subject of a few ASCII characters) costs no allocation.
func TestTextDoesNotAllocate(t *testing.T) {
	ua := "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0"
	if n := testing.AllocsPerRun(100, func() { _ = Text(ua) }); n != 0 {
		t.Errorf("Text allocates %v times for a plain value", n)
	}
}

// FuzzLimit: the result holds printable characters only, is at most max
// bytes plus the truncation note, and reads back to the input when not
// cut.
func FuzzLimit(f *testing.F) {
	for _, s := range []string{"", "curl/8", "a\nb", "\u202e", "a\xffb", `\`, "\U000e0041", strings.Repeat("\u202e", 100)} {
		f.Add(s, 256)
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		got := Limit(s, max)
		if !utf8.ValidString(got) {
			t.Fatalf("Limit(%q, %d) = %q: not UTF-8", s, max, got)
		}
		for _, r := range got {
			if !unicode.IsPrint(r) {
				t.Fatalf("Limit(%q, %d) = %q holds %U", s, max, got, r)
			}
		}
		body, cut := got, false
		if i := strings.LastIndex(got, "...["); i >= 0 && strings.HasSuffix(got, " bytes]") && len(got) > max {
			body, cut = got[:i], true
		}
		if len(body) > max {
			t.Fatalf("Limit(%q, %d) = %q: %d bytes before the note", s, max, got, len(body))
		}
		if !cut {
			if back, ok := unescape(got); !ok || back != s {
				t.Fatalf("Limit(%q, %d) = %q reads back as %q", s, max, got, back)
			}
		}
	})
}

// unescape reverses Limit's escapes.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		n := 0
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
			i++
			continue
		case 'x':
			n = 2
		case 'u':
			n = 4
		case 'U':
			n = 8
		default:
			return "", false
		}
		if i+2+n > len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
		if err != nil {
			return "", false
		}
		if n == 2 {
			b.WriteByte(byte(v))
		} else {
			b.WriteRune(rune(v))
		}
		i += 1 + n
	}
	return b.String(), true
}
