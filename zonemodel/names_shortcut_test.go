package zonemodel

import (
	"fmt"
	"strings"
	"testing"
)

// checkLabelsSplit is checkLabels as it was, splitting the name into a
// slice of labels: the reference FuzzCheckLabels holds it to.
func checkLabelsSplit(s string, allowWildcard bool) string {
	if strings.HasPrefix(s, ".") {
		return "must not start with '.'"
	}
	if strings.Contains(s, "..") {
		return "must not contain '..'"
	}
	for i, l := range strings.Split(s, ".") {
		if allowWildcard && i == 0 && l == "*" {
			continue
		}
		if len(l) == 0 {
			return "must not contain an empty label"
		}
		if len(l) > maxLabelLen {
			return fmt.Sprintf("label %q is longer than %d characters", l, maxLabelLen)
		}
		for j := 0; j < len(l); j++ {
			c := l[j]
			if !isLabelChar(c) && c != '/' { // '/': RFC 2317 labels, as checkLabels takes them
				if c == '*' && allowWildcard {
					return fmt.Sprintf("label %q: '*' is allowed only as the whole first label", l)
				}
				return fmt.Sprintf("label %q contains invalid character %s", l, quoteCharAt(l, j))
			}
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Sprintf("label %q must not start or end with '-'", l)
		}
	}
	return ""
}

// absoluteIfInZoneLower is absoluteIfInZone as it was, lower-casing the
// name and building ".<zone>" each time.
func absoluteIfInZoneLower(name, origin string) string {
	if name == "" || strings.HasSuffix(name, ".") {
		return name
	}
	zone := strings.TrimSuffix(origin, ".")
	lower := strings.ToLower(name)
	if lower == zone || strings.HasSuffix(lower, "."+zone) {
		return name + "."
	}
	return name
}

// FuzzCheckLabels: walking the labels in place finds what splitting the
// name finds, for names with and without a wildcard.
func FuzzCheckLabels(f *testing.F) {
	for _, s := range []string{"", "*", "*.a", "a.*", "a", "a.b", "a..b", ".a", "a.", "-a.b", "a-.b", "a b.c", "x.*.y", "**.a", "é.a", "0/25.a", "/", strings.Repeat("a", 64) + ".b"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, wildcard bool) {
		if got, want := checkLabels(s, wildcard), checkLabelsSplit(s, wildcard); got != want {
			t.Fatalf("checkLabels(%q, %v) = %q; splitting gives %q", s, wildcard, got, want)
		}
	})
}

// FuzzAbsoluteIfInZone: the in-place comparison decides as lower-casing
// the name did.
func FuzzAbsoluteIfInZone(f *testing.F) {
	for _, s := range []string{"", "www", "www.example.com", "WWW.Example.COM", "example.com", "EXAMPLE.COM", "xexample.com", "www.example.com.", "\u212a.example.com", "www.ex\xffample.com", "a.example.co"} {
		f.Add(s, "example.com.")
		f.Add(s, "Example.com.")
		f.Add(s, ".") // the root zone's origin
	}
	f.Fuzz(func(t *testing.T, name, origin string) {
		if got, want := absoluteIfInZone(name, origin), absoluteIfInZoneLower(name, origin); got != want {
			t.Fatalf("absoluteIfInZone(%q, %q) = %q; lower-casing gives %q", name, origin, got, want)
		}
	})
}
