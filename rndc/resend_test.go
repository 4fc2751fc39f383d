package rndc

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// onceFake plays named on loopback: it answers the handshake and every
// command, except that it executes (counts) a command whose verb is lose and
// then closes the connection without answering (the reply lost), and
// that with closeIdle it closes a connection after its first answer (as
// named does to an idle connection when it restarts).
type onceFake struct {
	ln        net.Listener
	key       Key
	lose      string
	closeIdle bool

	mu       sync.Mutex
	executed map[string]int
	conns    int
	idleShut chan struct{} // closed once a connection was closed after an answer
	shutOnce sync.Once
}

func newOnceFake(t *testing.T, key Key, lose string, closeIdle bool) *onceFake {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	f := &onceFake{ln: ln, key: key, lose: lose, closeIdle: closeIdle, executed: map[string]int{}, idleShut: make(chan struct{})}
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

func (f *onceFake) handle(c net.Conn) {
	defer c.Close()
	for answered := 0; ; {
		raw, err := readMsg(c)
		if err != nil {
			return
		}
		m, err := decodeMessage(raw)
		if err != nil || verify(f.key, m) != nil {
			return
		}
		ctrl, _ := m.top.sub("_ctrl")
		data, _ := m.top.sub("_data")
		ser, _ := ctrl.str("_ser")
		typ, _ := data.str("type")
		verb, _, _ := strings.Cut(typ, " ")
		if typ != "null" {
			f.mu.Lock()
			f.executed[verb]++
			f.mu.Unlock()
			if verb == f.lose {
				return // executed, the reply lost
			}
		}
		reply := table{
			{key: "_ctrl", val: table{
				{key: "_ser", val: ser},
				{key: "_tim", val: strconv.FormatInt(time.Now().Unix(), 10)},
				{key: "_rpl", val: "1"},
				{key: "_nonce", val: "4242"},
			}},
			{key: "_data", val: table{{key: "type", val: typ}, {key: "result", val: "0"}}},
		}
		out, err := encodeMessage(f.key, reply)
		if err != nil {
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
		if typ != "null" {
			answered++
		}
		if f.closeIdle && answered == 1 {
			c.Close()
			f.shutOnce.Do(func() { close(f.idleShut) })
			return
		}
	}
}

func (f *onceFake) count(typ string) (executed, conns int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.executed[typ], f.conns
}

// TestLostReplyNotResent: a command written on a reused connection that
// named executes and then closes without answering is outcome unknown and
// is not sent again (named would execute an addzone or delzone twice).
// The old client sent it again on a new connection: executed 2 times.
func TestLostReplyNotResent(t *testing.T) {
	key := testKey(t, HMACSHA256)
	f := newOnceFake(t, key, "addzone", false)
	c := &Client{Addr: f.ln.Addr().String(), Key: key, Timeout: 2 * time.Second}
	ctx := context.Background()
	if _, err := c.Command(ctx, "status"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Command(ctx, `addzone x.test { type primary; file "x"; };`)
	if !OutcomeUnknown(err) {
		t.Errorf("lost reply: err = %v, want ErrOutcomeUnknown", err)
	}
	if errors.Is(err, ErrAuth) {
		t.Errorf("lost reply on a reused connection reported as a key problem: %v", err)
	}
	if n, conns := f.count("addzone"); n != 1 || conns != 1 {
		t.Errorf("addzone executed %d times on %d connections, want once on the one reused connection", n, conns)
	}
}

// TestIdleClosedConnectionReplaced: a pooled connection that named closed
// while idle is replaced before the command is written: the command is
// delivered once, on a new connection, and succeeds.
func TestIdleClosedConnectionReplaced(t *testing.T) {
	key := testKey(t, HMACSHA256)
	f := newOnceFake(t, key, "", true)
	c := &Client{Addr: f.ln.Addr().String(), Key: key, Timeout: 2 * time.Second}
	ctx := context.Background()
	if _, err := c.Command(ctx, "status"); err != nil {
		t.Fatal(err)
	}
	<-f.idleShut
	// The FIN crosses loopback at once; give the scheduler a moment.
	time.Sleep(20 * time.Millisecond)
	if _, err := c.Command(ctx, `addzone x.test { type primary; file "x"; };`); err != nil {
		t.Fatalf("command after named closed the idle connection: %v", err)
	}
	if n, conns := f.count("addzone"); n != 1 || conns != 2 {
		t.Errorf("addzone executed %d times on %d connections in all, want once, on a second connection", n, conns)
	}
}
