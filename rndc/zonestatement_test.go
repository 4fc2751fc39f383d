package rndc

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The showzone testdata files were captured from a real BIND 9.18.49.
func TestParseZoneStatement(t *testing.T) {
	text := strings.TrimSpace(readTestdata(t, "showzone_primary.txt"))
	zc, err := ParseZoneStatement(text)
	if err != nil {
		t.Fatal(err)
	}
	if zc.Name != "p.test" || zc.Type() != "primary" || zc.Extra != "" {
		t.Errorf("zone = %q type %q extra %q", zc.Name, zc.Type(), zc.Extra)
	}
	var names []string
	for _, c := range zc.Clauses {
		names = append(names, c.Name)
	}
	if want := []string{"type", "file", "allow-transfer", "allow-update", "also-notify"}; !reflect.DeepEqual(names, want) {
		t.Errorf("clauses = %v, want %v", names, want)
	}
	at, _ := zc.Get("allow-transfer")
	if elems := elemStrings(t, at); !reflect.DeepEqual(elems, []string{"10.0.0.0/8", `key "zoneapi-update"`, "!192.0.2.3/32", `"any"`}) {
		t.Errorf("allow-transfer = %q", elems)
	}
	an, _ := zc.Get("also-notify")
	if elems := elemStrings(t, an); !reflect.DeepEqual(elems, []string{"127.0.0.1 port 5399", `192.0.2.1 key "zoneapi-update"`}) {
		t.Errorf("also-notify = %q", elems)
	}
	// Unchanged, the statement renders as named printed it (but for
	// named's double space after allow-transfer).
	if got, want := zc.String(), strings.Replace(text, "allow-transfer  {", "allow-transfer {", 1); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	// Changing one clause keeps every other one.
	zc.Set("also-notify", List(Words("192.0.2.9")))
	zc.Remove("allow-transfer")
	zc.Set("dnssec-policy", Quoted("default"))
	want := `{ type primary; file "/tmp/testbind-91617098/zones/p.test.zone"; allow-update { key "zoneapi-update"; }; also-notify { 192.0.2.9; }; dnssec-policy "default"; };`
	if got := zc.Block(); got != want {
		t.Errorf("Block() =\n%s\nwant\n%s", got, want)
	}
	if err := checkZoneBlock(zc.Block()); err != nil {
		t.Errorf("Block() is not a valid zone block: %v", err)
	}

	sec, err := ParseZoneStatement(readTestdata(t, "showzone_secondary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if sec.Type() != "secondary" {
		t.Errorf("type = %q", sec.Type())
	}
	p, _ := sec.Get("primaries")
	if elems := elemStrings(t, p); !reflect.DeepEqual(elems, []string{`127.0.0.1 port 1 key "zoneapi-update"`}) {
		t.Errorf("primaries = %q", elems)
	}
	pe, _ := p.Elems()
	if w := pe[0].Strings(); !reflect.DeepEqual(w, []string{"127.0.0.1", "port", "1", "key", "zoneapi-update"}) {
		t.Errorf("Strings = %q", w)
	}
}

// elemStrings renders each element of a list value.
func elemStrings(t *testing.T, v Value) []string {
	t.Helper()
	elems, ok := v.Elems()
	if !ok {
		t.Fatalf("%s is not a braced list", v)
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = e.String()
	}
	return out
}

func TestParseZoneStatementVariants(t *testing.T) {
	for _, tc := range []struct {
		in      string
		name    string
		extra   string
		clauses int
	}{
		{`zone "a.test" { type master; };`, "a.test", "", 1},
		{`zone "a.test" IN { type slave; masters { 192.0.2.1; }; };`, "a.test", "IN", 2},
		{"zone \"a.test\" in view \"v\" {\n type primary; // c\n /* x */ file \"a;b{\\\"\"; }", "a.test", `in view "v"`, 2},
		{`zone "a.test" { type primary; update-policy { grant "k" zonesub ANY; }; };`, "a.test", "", 2},
		{`zone "a.test" { type primary; notify explicit;; };`, "a.test", "", 2},
	} {
		zc, err := ParseZoneStatement(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if zc.Name != tc.name || zc.Extra != tc.extra || len(zc.Clauses) != tc.clauses {
			t.Errorf("%q: got %+v", tc.in, zc)
		}
		// What Block renders parses again to the same clauses.
		again, err := ParseZoneStatement("zone " + quote(zc.Name) + " " + zc.Block())
		if err != nil || !reflect.DeepEqual(again.Clauses, zc.Clauses) {
			t.Errorf("%q: round trip: %v %+v", tc.in, err, again)
		}
	}
	if f, _ := ParseZoneStatement(`zone "a.test" { file "a;b{\""; };`); f != nil {
		if v, _ := f.Get("file"); v.String() != `"a;b{\""` {
			t.Errorf("file = %q", v)
		}
	}
	for _, bad := range []string{
		``, `zone`, `options { };`, `zone "a" { type primary; `, `zone "a" { type primary };`,
		`zone "a" { type primary; }; zone "b" { };`, `zone "a" { type "unterminated; };`,
		`zone "a" { type primary; } }`, `zone "a" { /* open`, "zone \"a\" { type\x01primary; };",
		`zone "a" { { x; }; };`, `zone "a" { allow-update { key "k"; ; };`,
		// Lists that are not brace-balanced with every element ended by ';'.
		`zone "a" { c { a; };`, `zone "a" { c { a; } }; };`, `zone "a" { c { a }; };`, `zone "a" { c { { a; }; };`,
		// A string holding a control character.
		"zone \"a\" { file \"a\x01\"; };",
	} {
		if zc, err := ParseZoneStatement(bad); err == nil {
			t.Errorf("ParseZoneStatement(%q) = %+v, want an error", bad, zc)
		}
	}
	if zc, err := ParseZoneStatement(`zone "a" { c { }; };`); err != nil {
		t.Errorf("empty list: %v", err)
	} else if v, _ := zc.Get("c"); v.String() != "{ }" {
		t.Errorf("empty list = %q", v)
	}
}

// TestZoneStatementQuoting: whatever a value holds renders inside its
// clause: the block is one balanced block and parses back to the same
// clauses, the odd word quoted and control characters dropped.
func TestZoneStatementQuoting(t *testing.T) {
	for _, odd := range []string{
		`x"; }; addzone evil { type primary; file "/etc/passwd`, "a\nb", "a;b", "{", "}", `\`, `"`, "",
		"a b", "# c", "a//b", "a/*b", "\x00", "k\x7f", "é",
	} {
		zs := &ZoneStatement{Name: "a.test"}
		zs.Add("type", Word("primary"))
		zs.Add("file", Quoted(odd))
		zs.Add("dnssec-policy", Word(odd))
		zs.Add("allow-update", List(Value{Word("key"), Quoted(odd)}, Value{Word(odd)}))
		zs.Add("inline-signing", Word("yes"))
		block := zs.Block()
		if err := checkZoneBlock(block); err != nil {
			t.Errorf("%q: block %s: %v", odd, block, err)
			continue
		}
		again, err := ParseZoneStatement("zone " + quote(zs.Name) + " " + block)
		if err != nil {
			t.Errorf("%q: block %s does not parse: %v", odd, block, err)
			continue
		}
		clean := strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, odd)
		want := []Clause{
			{"type", Words("primary")},
			{"file", Value{Quoted(clean)}},
			{"dnssec-policy", Value{Word(clean)}},
			{"allow-update", Value{List(Value{Word("key"), Quoted(clean)}, Value{Word(clean)})}},
			{"inline-signing", Words("yes")},
		}
		// A word that is not a plain word comes back as a string.
		if !plainWord(odd) {
			want[2].Value[0].Kind = StringTerm
			want[3].Value[0].Elems[1][0].Kind = StringTerm
		}
		if !reflect.DeepEqual(again.Clauses, want) {
			t.Errorf("%q: block %s parses to %+v", odd, block, again.Clauses)
		}
	}
	if got := quote("a\"b\\c\nd"); got != `"a\"b\\cd"` {
		t.Errorf("quote = %s", got)
	}
}

// FuzzParseZoneStatement: the parser never panics, and a statement it
// accepts renders (Block) into one block that parses back to the same
// clauses: render(parse(x)) round-trips.
func FuzzParseZoneStatement(f *testing.F) {
	f.Add(`zone "p.test" { type primary; file "/x"; allow-transfer  { 10.0.0.0/8; key "k"; }; };`)
	f.Add(`zone "a" IN { type secondary; primaries { 1.2.3.4 port 5 key "k"; }; };`)
	f.Add(`zone "a" { update-policy { grant "k" zonesub ANY; }; /* c */ };`)
	f.Fuzz(func(t *testing.T, s string) {
		zc, err := ParseZoneStatement(s)
		if err != nil {
			return
		}
		block := zc.Block()
		if err := checkZoneBlock(block); err != nil {
			t.Fatalf("Block() %q of %q: %v", block, s, err)
		}
		again, err := ParseZoneStatement("zone " + quote(zc.Name) + " " + block)
		if err != nil {
			t.Fatalf("re-parse of %q: %v", block, err)
		}
		if !reflect.DeepEqual(again.Clauses, zc.Clauses) {
			t.Fatalf("round trip of %q: %+v != %+v", s, again.Clauses, zc.Clauses)
		}
	})
}

// FuzzZoneStatementValues: nothing in a value breaks out of its clause.
// Any word and string, in a clause and in a list, render into one block
// that parses back to the same clauses, followed by the sentinel clause.
func FuzzZoneStatementValues(f *testing.F) {
	f.Add("default", "/zones/a.zone")
	f.Add(`x; }; addzone evil {`, `"; }; };`)
	f.Add("a//b", "\\\n")
	f.Fuzz(func(t *testing.T, word, str string) {
		zs := &ZoneStatement{Name: "a.test"}
		zs.Add("file", Quoted(str))
		zs.Add("dnssec-policy", Word(word))
		zs.Add("also-notify", List(Value{Word(word), Word("port"), Word("53"), Word("key"), Quoted(str)}))
		zs.Add("zoneapi-end", Word("yes"))
		block := zs.Block()
		if strings.ContainsAny(block, "\x00\r\n") {
			t.Fatalf("block spans lines or holds a NUL: %q", block)
		}
		if err := checkZoneBlock(block); err != nil {
			t.Fatalf("block %q: %v", block, err)
		}
		again, err := ParseZoneStatement("zone " + quote(zs.Name) + " " + block)
		if err != nil {
			t.Fatalf("block %q does not parse: %v", block, err)
		}
		if len(again.Clauses) != 4 || again.Clauses[3].Name != "zoneapi-end" {
			t.Fatalf("block %q parses to %+v", block, again.Clauses)
		}
		for i, c := range again.Clauses {
			if c.Name != zs.Clauses[i].Name || len(c.Value) != len(zs.Clauses[i].Value) {
				t.Fatalf("clause %d of %q: %+v", i, block, c)
			}
		}
		if el, ok := again.Clauses[2].Value.Elems(); !ok || len(el) != 1 || len(el[0]) != 5 {
			t.Fatalf("also-notify of %q: %+v", block, again.Clauses[2].Value)
		}
		// Rendering what was parsed gives the same block.
		if again.Block() != block {
			t.Fatalf("block %q renders again as %q", block, again.Block())
		}
	})
}

func TestIntegrationModZone(t *testing.T) {
	t.Parallel()
	s, c := startNamed(t, "")
	ctx := context.Background()
	path := addTestZone(t, s, c, "mod.test", `allow-update { key "zoneapi-update"; }; also-notify { 127.0.0.1 port 5399; };`)

	zc, err := c.ShowZoneStatement(ctx, "mod.test")
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := zc.Get("file"); f.String() != quote(path) {
		t.Errorf("file = %s, want %q", f, path)
	}
	zc.Set("allow-transfer", List(Words("192.0.2.0/24"), Value{Word("key"), Quoted("zoneapi-update")}))
	zc.Remove("also-notify")
	text, err := c.ModZone(ctx, zc)
	if err != nil || text != "zone 'mod.test' reconfigured." {
		t.Fatalf("ModZone = %q, %v", text, err)
	}
	after, err := c.ShowZoneStatement(ctx, "mod.test")
	if err != nil {
		t.Fatal(err)
	}
	// named prints clauses in its own order.
	if !reflect.DeepEqual(sortedClauses(after), sortedClauses(zc)) {
		t.Errorf("after modzone showzone says %+v, want %+v", after.Clauses, zc.Clauses)
	}
	// A change named refuses leaves the zone as it was.
	bad := *after
	bad.Clauses = append([]Clause(nil), after.Clauses...)
	bad.Set("dnssec-policy", Quoted("no-such-policy"))
	if _, err := c.ModZone(ctx, &bad); err == nil {
		t.Error("modzone with an unknown dnssec-policy succeeded")
	}
	if again, err := c.ShowZoneStatement(ctx, "mod.test"); err != nil || !reflect.DeepEqual(again.Clauses, after.Clauses) {
		t.Errorf("after a refused modzone: %+v, %v", again, err)
	}
	// A value that tries to end its clause and add a zone stays a value:
	// named refuses the policy, and no other zone appears.
	evil := *after
	evil.Clauses = append([]Clause(nil), after.Clauses...)
	evil.Set("dnssec-policy", Word(`x; }; addzone evil.test { type primary; file "evil.zone"; }; zone "mod.test" {`))
	if _, err := c.ModZone(ctx, &evil); err == nil {
		t.Error("modzone with an injected dnssec-policy succeeded")
	}
	if _, err := c.ShowZoneStatement(ctx, "evil.test"); !IsNotFound(err) {
		t.Errorf("showzone evil.test after the injection attempt: %v", err)
	}

	if _, err := c.ShowZoneStatement(ctx, "nope.test"); !IsNotFound(err) {
		t.Errorf("showzone of an unknown zone: %v", err)
	}
	_, err = c.Retransfer(ctx, "mod.test")
	if !IsWrongZoneType(err) || !strings.Contains(err.Error(), "inappropriate zone type: primary") {
		t.Errorf("retransfer of a primary: %v", err)
	}
	if _, err := c.Retransfer(ctx, "nope.test"); !IsNotFound(err) {
		t.Errorf("retransfer of an unknown zone: %v", err)
	}
}

func sortedClauses(zc *ZoneStatement) []Clause {
	out := append([]Clause(nil), zc.Clauses...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// TestZoneStatementCommandsFake: the commands against a fake named that
// answers as BIND 9.18 does (texts captured from a real one).
func TestZoneStatementCommandsFake(t *testing.T) {
	key := testKey(t, HMACSHA256)
	f := newFake(t, key, "ok")
	var mu sync.Mutex
	var seen []string
	f.reply = func(typ string) (string, string, string) {
		mu.Lock()
		seen = append(seen, typ)
		mu.Unlock()
		switch {
		case typ == "showzone p.test":
			return "0", "", strings.TrimSpace(readTestdata(t, "showzone_primary.txt"))
		case typ == "showzone garbled.test":
			return "0", "", `zone "garbled.test" { type primary;`
		case strings.HasPrefix(typ, "modzone p.test "):
			return "0", "", "zone 'p.test' reconfigured."
		case typ == "retransfer p.test":
			return "25", "failure", "retransfer: inappropriate zone type: primary"
		}
		return "23", "not found", "no matching zone 'x' in any view"
	}
	c := &Client{Addr: f.addr(), Key: key, Timeout: 2 * time.Second}
	ctx := context.Background()
	zc, err := c.ShowZoneStatement(ctx, "p.test")
	if err != nil || zc.Type() != "primary" || len(zc.Clauses) != 5 {
		t.Fatalf("ShowZoneStatement = %+v, %v", zc, err)
	}
	if _, err := c.ShowZoneStatement(ctx, "garbled.test"); err == nil || !strings.Contains(err.Error(), "parsing") {
		t.Errorf("garbled showzone: %v", err)
	}
	if _, err := c.ShowZoneStatement(ctx, "nope.test"); !IsNotFound(err) {
		t.Errorf("unknown zone: %v", err)
	}
	if text, err := c.ModZone(ctx, zc); err != nil || text != "zone 'p.test' reconfigured." {
		t.Errorf("ModZone = %q, %v", text, err)
	}
	if _, err := c.Retransfer(ctx, "p.test"); !IsWrongZoneType(err) || IsNotFound(err) {
		t.Errorf("Retransfer of a primary: %v", err)
	}
	// Refused before anything is sent: a bad name. (A block that is not
	// one block cannot be built: values are typed.)
	mu.Lock()
	before := len(seen)
	mu.Unlock()
	for _, bad := range []string{"p.test; x", "p.test x", ""} {
		zs := &ZoneStatement{Name: bad, Clauses: zc.Clauses}
		if _, err := c.ModZone(ctx, zs); err == nil {
			t.Errorf("ModZone(%q) was accepted", bad)
		}
		if _, err := c.AddZone(ctx, zs); err == nil {
			t.Errorf("AddZone(%q) was accepted", bad)
		}
	}
	if _, err := c.Retransfer(ctx, "bad zone"); err == nil {
		t.Error("Retransfer of a bad name was accepted")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != before {
		t.Errorf("refused commands reached named: %q", seen[before:])
	}
}
