package dnsupdate

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// updateFake plays named's DNS port over TCP: it answers queries, counts
// (applies) every UPDATE, and with lose closes the connection after
// applying an UPDATE without answering (the answer lost); with closeIdle
// it closes a connection after its first answer, as named does to idle
// connections when it restarts.
type updateFake struct {
	ln        net.Listener
	lose      bool
	closeIdle bool
	idleShut  chan struct{}
	shutOnce  sync.Once

	mu      sync.Mutex
	updates int
	conns   int
}

func newUpdateFake(t *testing.T, lose, closeIdle bool) *updateFake {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	f := &updateFake{ln: ln, lose: lose, closeIdle: closeIdle, idleShut: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns++
			f.mu.Unlock()
			go f.handle(c)
		}
	}()
	return f
}

func (f *updateFake) handle(c net.Conn) {
	co := &dns.Conn{Conn: c, TsigSecret: map[string]string{"zoneapi-update.": testSecret}}
	defer co.Close()
	for {
		m, err := co.ReadMsg()
		if err != nil {
			return
		}
		if m.Opcode == dns.OpcodeUpdate {
			f.mu.Lock()
			f.updates++
			f.mu.Unlock()
			if f.lose {
				return // applied, the answer lost
			}
		}
		r := new(dns.Msg)
		r.SetReply(m)
		if err := co.WriteMsg(r); err != nil {
			return
		}
		if f.closeIdle {
			co.Close()
			f.shutOnce.Do(func() { close(f.idleShut) })
			return
		}
	}
}

func (f *updateFake) count() (updates, conns int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.updates, f.conns
}

const testSecret = "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"

func testUpdate() *dns.Msg {
	m := new(dns.Msg)
	m.SetUpdate("example.test.")
	rr, _ := dns.NewRR("www.example.test. 300 IN A 192.0.2.1")
	m.NameNotUsed([]dns.RR{rr}) // a prerequisite a second copy would fail
	m.Insert([]dns.RR{rr})
	return m
}

func testClient(t *testing.T, addr string) *Client {
	t.Helper()
	c, err := NewClient(addr, &TSIGKey{Name: "zoneapi-update", Algorithm: "hmac-sha256", Secret: testSecret}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLostAnswerNotResent: an UPDATE written on a pooled connection that
// named applies and then closes without answering is an unknown outcome
// and is not sent again (a second copy would be applied twice, or fail
// its prerequisites although the change was made). The old client sent it
// again on a new connection: applied 2 times.
func TestLostAnswerNotResent(t *testing.T) {
	f := newUpdateFake(t, true, false)
	c := testClient(t, f.ln.Addr().String())
	ctx := context.Background()
	q := new(dns.Msg)
	q.SetQuestion("example.test.", dns.TypeSOA)
	if _, err := c.exchange(ctx, q, false); err != nil {
		t.Fatal(err)
	}
	_, err := c.exchange(ctx, testUpdate(), true)
	if err == nil || !OutcomeUnknown(err) {
		t.Errorf("lost answer: err = %v, want an unknown outcome", err)
	}
	if n, conns := f.count(); n != 1 || conns != 1 {
		t.Errorf("UPDATE applied %d times on %d connections, want once on the one pooled connection", n, conns)
	}
}

// TestIdleClosedConnectionReplaced: a pooled connection that named closed
// while idle is replaced before the UPDATE is written: it is delivered
// once, on a new connection, and answered.
func TestIdleClosedConnectionReplaced(t *testing.T) {
	f := newUpdateFake(t, false, true)
	c := testClient(t, f.ln.Addr().String())
	ctx := context.Background()
	q := new(dns.Msg)
	q.SetQuestion("example.test.", dns.TypeSOA)
	if _, err := c.exchange(ctx, q, false); err != nil {
		t.Fatal(err)
	}
	<-f.idleShut
	// The FIN crosses loopback at once; give the scheduler a moment.
	time.Sleep(20 * time.Millisecond)
	r, err := c.exchange(ctx, testUpdate(), true)
	if err != nil {
		t.Fatalf("UPDATE after named closed the idle connection: %v", err)
	}
	if r.Rcode != dns.RcodeSuccess {
		t.Errorf("rcode %s", dns.RcodeToString[r.Rcode])
	}
	if n, conns := f.count(); n != 1 || conns != 2 {
		t.Errorf("UPDATE applied %d times on %d connections in all, want once, on a second connection", n, conns)
	}
}
