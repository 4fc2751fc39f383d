package integration

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// historyViewsNamed starts named with two views, internal (matched by
// its own TSIG key) and external (the rest, the API's update key
// included), sending a NOTIFY for every change of every view's zones to
// a port of its own (returned, for notify_listen; also-notify in the
// options, which every view inherits) and keeping a journal of reloads,
// as docs/history.md and docs/views.md ask of named.conf.
func historyViewsNamed(t *testing.T) (*testbind.Server, int) {
	t.Helper()
	port, _, err := testbind.FreePorts()
	if err != nil {
		t.Fatal(err)
	}
	views := []testbind.View{{Name: "internal", Key: true}, {Name: "external"}}
	ns := testbind.Start(t, &testbind.Options{
		Views:        views,
		ExtraOptions: fmt.Sprintf("also-notify { 127.0.0.1 port %d; };\n\tixfr-from-differences yes;", port),
		BeforeStart: func(s *testbind.Server) error {
			// conf.test: a named.conf zone of view internal.
			// Some size: named answers an IXFR with the whole zone when
			// the changes would be larger than it (max-ixfr-ratio).
			zone := testbind.MinimalZone("conf.test", 7)
			for i := range 60 {
				zone += fmt.Sprintf("h%d.conf.test. 300 IN A 10.1.0.%d\n", i, i)
			}
			p, err := s.WriteViewZone("internal", "conf.test", zone)
			if err != nil {
				return err
			}
			views[0].Config = testbind.ZoneStatement("conf.test", p, s.ViewKeys["internal"].Name)
			return nil
		},
	})
	return ns, port
}

// nsupdateView sends one dynamic update to zone with the nsupdate
// program, signed with keyFile (a view's key picks the view).
func nsupdateView(t *testing.T, ns *testbind.Server, keyFile, zone, lines string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(ns.DNSAddr)
	cmd := exec.Command(nsupdatePath, "-v", "-k", keyFile)
	cmd.Stdin = strings.NewReader(fmt.Sprintf("server %s %s\nzone %s\n%ssend\n", host, port, zone, lines))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nsupdate: %v: %s", err, out)
	}
}

// externalAdds returns the external changes of cs that add name.
func externalAdds(cs []change, name string) []change {
	var out []change
	for _, ch := range cs {
		if ch.Source != "external" {
			continue
		}
		for _, a := range ch.Added {
			if a.Name == name {
				out = append(out, ch)
			}
		}
	}
	return out
}

// startHistoryViews starts named with two views and Caddy addressing
// both (external the default), with the history's NOTIFY listener when
// listen is set, and creates zone in each view through the API.
func startHistoryViews(t *testing.T, zone string, listen bool) (*testbind.Server, *caddy) {
	t.Helper()
	ns, port := historyViewsNamed(t)
	extra := viewsCaddyfile(ns) + "\n\t\t\tstatistics_channel " + ns.StatsAddr
	if listen {
		extra += fmt.Sprintf(`
			history {
				notify_listen 127.0.0.1:%d
			}`, port)
	}
	c := startCaddy(t, ns, caddyOpts{extra: extra})
	expect(t, c.do("POST", "/api/v1/zones?view=internal", zoneBody(zone)), http.StatusCreated, "create in internal")
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create in the default view")
	t.Cleanup(func() {
		if t.Failed() {
			for _, ch := range c.changes(testToken, "/api/v1/changes") {
				t.Logf("%s view %q", ch, ch.View)
			}
		}
	})
	return ns, c
}

// TestHistoryViewsNotify: with views configured, a change made with
// nsupdate to a zone of the second (not default) view is recorded from
// named's NOTIFY alone, without any API write: source external, view
// internal, its records, once; the same zone name in the default view
// gets nothing.
func TestHistoryViewsNotify(t *testing.T) {
	const zone = "hv.test"
	ns, c := startHistoryViews(t, zone, true)

	nsupdateView(t, ns, ns.ViewKeys["internal"].File, zone, "update add ext."+zone+". 60 IN A 10.0.0.99\n")
	var got []change
	waitFor(t, "the nsupdate change of view internal in the history", func() bool {
		got = externalAdds(c.changes(testToken, "/api/v1/zones/"+zone+"/changes?view=internal"), "ext."+zone)
		return len(got) > 0
	})
	time.Sleep(time.Second) // a second NOTIFY would show as a duplicate
	got = externalAdds(c.changes(testToken, "/api/v1/zones/"+zone+"/changes?view=internal"), "ext."+zone)
	if len(got) != 1 || got[0].View != "internal" || got[0].Added[0].Records[0] != "10.0.0.99" {
		t.Fatalf("the nsupdate change: %v", got)
	}
	serial, ok := viewSerial(t, ns, "internal", zone)
	if !ok || got[0].SerialAfter == nil || *got[0].SerialAfter != serial {
		t.Errorf("the change's serial after: %s; the zone in internal is at %d", got[0], serial)
	}

	// conf.test, a named.conf zone of view internal that the API does
	// not manage, is followed because named's statistics list it there:
	// its first NOTIFY is the history's starting point (named may fold
	// several changes into one NOTIFY, so changes are made until one is
	// recorded), the changes after it are recorded, in view internal.
	var conf []change
	n := 0
	waitFor(t, "a change of conf.test (view internal) in the history", func() bool {
		n++
		nsupdateView(t, ns, ns.ViewKeys["internal"].File, "conf.test", fmt.Sprintf("update add c%d.conf.test. 60 IN A 10.0.0.1\n", n))
		time.Sleep(500 * time.Millisecond)
		conf = c.changes(testToken, "/api/v1/changes?kind=records.changed")
		for _, ch := range conf {
			if ch.Zone == "conf.test" {
				return true
			}
		}
		return false
	})
	for _, ch := range conf {
		if ch.Zone == "conf.test" && (ch.View != "internal" || ch.Source != "external" || len(ch.Added) == 0) {
			t.Errorf("conf.test's change: %s view %q", ch, ch.View)
		}
	}

	for _, ch := range c.changes(testToken, "/api/v1/changes") {
		if ch.Source == "external" && ch.View != "internal" {
			t.Errorf("an external change outside view internal: %s view %q", ch, ch.View)
		}
	}
}

// TestHistoryViewsRestart: a change made with nsupdate to a zone of the
// second (not default) view while Caddy is down is recorded at start,
// once, with its view. Caddy has no NOTIFY listener here: named retries
// an unanswered NOTIFY for a while, and one that reached the restarted
// Caddy would record the change without the start-up catch-up.
func TestHistoryViewsRestart(t *testing.T) {
	const zone = "hvr.test"
	ns, c := startHistoryViews(t, zone, false)
	c.Stop()
	nsupdateView(t, ns, ns.ViewKeys["internal"].File, zone, "update add down."+zone+". 60 IN A 10.0.0.98\n")
	c.Start()

	var got []change
	waitFor(t, "the change made while Caddy was down in the history", func() bool {
		got = externalAdds(c.changes(testToken, "/api/v1/zones/"+zone+"/changes?view=internal"), "down."+zone)
		return len(got) > 0
	})
	time.Sleep(time.Second)
	got = externalAdds(c.changes(testToken, "/api/v1/changes"), "down."+zone)
	if len(got) != 1 || got[0].View != "internal" {
		t.Fatalf("the change made while Caddy was down: %v", got)
	}
}

// viewSerial is zone's SOA serial as named serves it to view's clients.
func viewSerial(t *testing.T, ns *testbind.Server, view, zone string) (uint32, bool) {
	t.Helper()
	rrs, err := ns.Query(view, zone, dns.TypeSOA)
	if err != nil || len(rrs) == 0 {
		return 0, false
	}
	soa, ok := rrs[0].(*dns.SOA)
	if !ok {
		return 0, false
	}
	return soa.Serial, true
}
