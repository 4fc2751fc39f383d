package integration

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// dnsProxy forwards DNS over TCP to named and, while armed, holds back
// every UPDATE of one zone (the catalog): the moment one arrives, the
// zone step of the request that sent it is done and its catalog step is
// in flight. That is where the test kills Caddy.
type dnsProxy struct {
	ln     net.Listener
	target string
	zone   string // fqdn, lower case
	armed  atomic.Bool
	held   chan struct{} // one value per held UPDATE
	// loseReply, while set, forwards every UPDATE of the zone that adds
	// records (a new member) to named but loses named's reply (the
	// connection is closed instead), the first and any copy sent again;
	// lost gets a value for each. UPDATEs that only delete pass.
	loseReply atomic.Bool
	lost      chan struct{}
	mu        sync.Mutex
	holding   []net.Conn
}

func newDNSProxy(t testing.TB, target, zone string) *dnsProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dnsProxy{ln: ln, target: target, zone: dns.Fqdn(strings.ToLower(zone)), held: make(chan struct{}, 16), lost: make(chan struct{}, 16)}
	t.Cleanup(func() { ln.Close(); p.release() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

// addsRecords reports whether an UPDATE adds records (class IN in its
// update section), rather than only deleting.
func addsRecords(m *dns.Msg) bool {
	for _, rr := range m.Ns {
		if rr.Header().Class == dns.ClassINET {
			return true
		}
	}
	return false
}

func (p *dnsProxy) addr() string { return p.ln.Addr().String() }

// release closes the connections whose UPDATE was held (never forwarded).
func (p *dnsProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.holding {
		c.Close()
	}
	p.holding = nil
}

func (p *dnsProxy) serve(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	go func() { _, _ = io.Copy(c, up); c.Close() }()
	var hdr [2]byte
	for {
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint16(hdr[:]))
		if _, err := io.ReadFull(c, msg); err != nil {
			return
		}
		var m dns.Msg
		if p.armed.Load() && m.Unpack(msg) == nil && m.Opcode == dns.OpcodeUpdate &&
			len(m.Question) == 1 && strings.EqualFold(m.Question[0].Name, p.zone) {
			p.mu.Lock()
			p.holding = append(p.holding, c)
			p.mu.Unlock()
			p.held <- struct{}{}
			select {} // never forwarded; the connection closes at release
		}
		if m.Unpack(msg) == nil && m.Opcode == dns.OpcodeUpdate && len(m.Question) == 1 &&
			strings.EqualFold(m.Question[0].Name, p.zone) && p.loseReply.Load() && addsRecords(&m) {
			// named applies it; its reply goes nowhere.
			if once, err := net.Dial("tcp", p.target); err == nil {
				_, _ = once.Write(append(hdr[:], msg...))
				_, _ = io.ReadFull(once, hdr[:])
				once.Close()
			}
			select {
			case p.lost <- struct{}{}:
			default:
			}
			return
		}
		if _, err := up.Write(append(hdr[:], msg...)); err != nil {
			return
		}
	}
}

// TestCatalogCrash: through the API, a mixed workload of 200 creates and
// deletes, with Caddy killed (SIGKILL) three times between a zone step
// and its catalog step; after each restart and after a reconcile the
// catalog's members equal the managed zones, which equal what named
// serves.
func TestCatalogCrash(t *testing.T) {
	t.Parallel()
	ns := startNamed(t)
	const catalogZone = "catalog.crash.test"
	proxy := newDNSProxy(t, ns.DNSAddr, catalogZone)
	c := startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf("dns_server %s\n\t\t\tcatalog %s", proxy.addr(), catalogZone)})

	rng := rand.New(rand.NewPCG(12, 9))
	managed := map[string]bool{}
	var order []string
	next := 0
	pick := func() (method, zone string) {
		if len(order) == 0 || rng.IntN(3) != 0 {
			zone = fmt.Sprintf("c%03d.crash.test", next)
			next++
			return "POST", zone
		}
		i := rng.IntN(len(order))
		zone = order[i]
		return "DELETE", zone
	}
	apply := func(method, zone string, created bool) {
		if method == "POST" && created {
			managed[zone] = true
			order = append(order, zone)
		}
		if method == "DELETE" && !created {
			delete(managed, zone)
			order = slices.DeleteFunc(order, func(z string) bool { return z == zone })
		}
	}
	crashes := map[int]bool{40: true, 110: true, 170: true}
	for op := 0; op < 200; op++ {
		method, zone := pick()
		if !crashes[op] {
			path, body := "/api/v1/zones", any(zoneBody(zone))
			if method == "DELETE" {
				path, body = "/api/v1/zones/"+zone, nil
			}
			r := c.do(method, path, body)
			want := map[string]int{"POST": http.StatusCreated, "DELETE": http.StatusOK}[method]
			if r.status != want {
				t.Fatalf("op %d %s %s: %d %s", op, method, zone, r.status, r.raw)
			}
			apply(method, zone, method == "POST")
			continue
		}
		// Crash: hold the catalog UPDATE, kill Caddy once it is sent.
		proxy.armed.Store(true)
		go func() {
			req, _ := http.NewRequest(method, c.Base+"/api/v1/zones", strings.NewReader(mustJSON(t, zoneBody(zone))))
			if method == "DELETE" {
				req, _ = http.NewRequest(method, c.Base+"/api/v1/zones/"+zone, nil)
			}
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close() // the process dies before it answers
			}
		}()
		select {
		case <-proxy.held:
		case <-time.After(30 * time.Second):
			t.Fatalf("op %d: the catalog UPDATE of %s %s never came", op, method, zone)
		}
		_ = c.Process().Signal(syscall.SIGKILL)
		<-c.Done()
		proxy.armed.Store(false)
		proxy.release()
		c.Start()
		// The crashed operation's outcome is whatever the restarted
		// instance settles it to: ask it.
		r := c.do("GET", "/api/v1/zones/"+zone, nil)
		exists := r.status == http.StatusOK && r.body["managed"] == true
		t.Logf("crash at op %d, %s %s between the zone step and the catalog step: after the restart the zone exists: %v", op, method, zone, exists)
		apply(method, zone, exists)
		checkCatalog(t, c, ns, managed, fmt.Sprintf("after the crash at op %d (%s %s)", op, method, zone))
	}
	r := c.do("POST", "/api/v1/catalog/reconcile", nil)
	expect(t, r, http.StatusOK, "reconcile")
	checkCatalog(t, c, ns, managed, "after the workload and a reconcile")
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkCatalog: the catalog's members equal the managed zones (the index,
// as listed), which equal want, and named serves each of them.
func checkCatalog(t testing.TB, c *caddy, ns *testbind.Server, want map[string]bool, when string) {
	t.Helper()
	var wantList []string
	for z := range want {
		wantList = append(wantList, z)
	}
	slices.Sort(wantList)
	r := c.do("GET", "/api/v1/zones?limit=1000", nil)
	expect(t, r, http.StatusOK, "list")
	index := strs(r.body["zones"])
	r = c.do("GET", "/api/v1/catalog", nil)
	expect(t, r, http.StatusOK, "catalog")
	var members []string
	for _, m := range toSlice(r.body["members"]) {
		members = append(members, m.(map[string]any)["zone"].(string))
	}
	slices.Sort(members)
	if !slices.Equal(index, wantList) {
		t.Errorf("%s: index %d %q, want %d %q", when, len(index), index, len(wantList), wantList)
	}
	if !slices.Equal(members, index) {
		t.Errorf("%s: catalog members %d %q, index %d %q", when, len(members), members, len(index), index)
	}
	for _, z := range index {
		if _, ok := soaOn(ns, z); !ok {
			t.Errorf("%s: named does not serve %s", when, z)
		}
	}
}

// TestCatalogScopes: the catalog names every zone, so an identity limited
// to some zones may neither read nor repair it; an unlimited one may.
func TestCatalogScopes(t *testing.T) {
	t.Parallel()
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "one")
	c := startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf(`catalog catalog.scope.test
			auth static {
				token admin %s
				token one %s {
					zones one.test
				}
			}`, hash["admin"], hash["one"])})
	expect(t, c.as(tok["one"], "POST", "/api/v1/zones", zoneBody("one.test")), http.StatusCreated, "scoped create")
	r := c.as(tok["admin"], "GET", "/api/v1/catalog", nil)
	expect(t, r, http.StatusOK, "admin reads the catalog")
	if r.body["count"] != float64(1) {
		t.Errorf("catalog = %s", r.raw)
	}
	expectError(t, c.as(tok["one"], "GET", "/api/v1/catalog", nil), http.StatusForbidden, "Forbidden", "catalog covers every zone")
	expectError(t, c.as(tok["one"], "POST", "/api/v1/catalog/reconcile", nil), http.StatusForbidden, "Forbidden", "catalog covers every zone")
	expect(t, c.as(tok["admin"], "POST", "/api/v1/catalog/reconcile", nil), http.StatusOK, "admin reconciles")
}
