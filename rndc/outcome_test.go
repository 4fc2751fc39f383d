package rndc

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClosedBeforeHandshakeIsNotAuth is defect 7 of issue 10: a named that
// closes a connection before the handshake (because it is stopping) was
// reported as "named rejected the rndc key". The old client failed this
// test: it returned ErrAuth.
func TestClosedBeforeHandshakeIsNotAuth(t *testing.T) {
	key := testKey(t, HMACSHA256)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	go func() {
		// One connection, closed at once, as when named shuts its
		// control channel down. The listener goes first, so the client's
		// retry is refused rather than racing the listener's close.
		c, err := ln.Accept()
		ln.Close()
		if err == nil {
			c.Close()
		}
	}()
	c := &Client{Addr: addr, Key: key, Timeout: 2 * time.Second}
	_, err = c.Command(context.Background(), "status")
	if err == nil {
		t.Fatal("command succeeded")
	}
	if errors.Is(err, ErrAuth) || strings.Contains(err.Error(), "key") {
		t.Fatalf("a closed connection of a stopping named reported as a key problem: %v", err)
	}
	if OutcomeUnknown(err) {
		t.Errorf("a command never sent reported as unknown: %v", err)
	}
	if !strings.Contains(err.Error(), "before the handshake") {
		t.Errorf("error does not say what happened: %v", err)
	}
}

// TestOutcomeUnknown checks which failures say that named may have run
// the command: only those after the command was sent.
func TestOutcomeUnknown(t *testing.T) {
	key := testKey(t, HMACSHA256)
	ctx := context.Background()

	// A fake that completes the handshake, then reads the command and
	// never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				raw, err := readMsg(c)
				if err != nil {
					return
				}
				m, _ := decodeMessage(raw)
				ctrl, _ := m.top.sub("_ctrl")
				ser, _ := ctrl.str("_ser")
				reply := table{
					{key: "_ctrl", val: table{{key: "_ser", val: ser}, {key: "_rpl", val: "1"}, {key: "_nonce", val: "777"}}},
					{key: "_data", val: table{{key: "type", val: "null"}, {key: "result", val: "0"}}},
				}
				out, _ := encodeMessage(key, reply)
				_, _ = c.Write(out)
				_, _ = readMsg(c) // the command, never answered
				time.Sleep(5 * time.Second)
			}()
		}
	}()
	c := &Client{Addr: ln.Addr().String(), Key: key, Timeout: 300 * time.Millisecond}
	_, err = c.Command(ctx, "addzone x.test { type primary; file \"x\"; };")
	if !OutcomeUnknown(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout after sending: err = %v, want ErrOutcomeUnknown and DeadlineExceeded", err)
	}

	// Silent from the start: the handshake never completes, the command
	// was never sent.
	silent := newFake(t, key, "silent")
	c = &Client{Addr: silent.addr(), Key: key, Timeout: 300 * time.Millisecond}
	if _, err := c.Command(ctx, "status"); err == nil || OutcomeUnknown(err) {
		t.Errorf("timeout in the handshake: err = %v, want a known failure", err)
	}

	// Nothing listening.
	c = &Client{Addr: "127.0.0.1:1", Key: key, Timeout: 300 * time.Millisecond}
	if _, err := c.Command(ctx, "status"); err == nil || OutcomeUnknown(err) {
		t.Errorf("refused connection: err = %v, want a known failure", err)
	}

	// An answered command is never unknown, even an error.
	ok := newFake(t, key, "ok")
	c = &Client{Addr: ok.addr(), Key: key, Timeout: time.Second}
	if _, err := c.Command(ctx, "status"); err != nil {
		t.Errorf("ok: %v", err)
	}
}

// TestExpiry checks the _exp the client sends: named refuses a command it
// reads after that time, which bounds how late a timed-out command can
// still take effect.
func TestExpiry(t *testing.T) {
	key := testKey(t, HMACSHA256)
	for _, tc := range []struct {
		expiry time.Duration
		want   int64
	}{{0, 60}, {7 * time.Second, 7}, {100 * time.Millisecond, 1}} {
		f := newFake(t, key, "capture")
		c := &Client{Addr: f.addr(), Key: key, Timeout: time.Second, Expiry: tc.expiry}
		_, _ = c.Command(context.Background(), "status")
		f.mu.Lock()
		if len(f.captured) == 0 {
			f.mu.Unlock()
			t.Fatalf("captured %d messages", len(f.captured))
		}
		m, err := decodeMessage(f.captured[0])
		f.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		ctrl, _ := m.top.sub("_ctrl")
		tim, _ := ctrl.str("_tim")
		exp, _ := ctrl.str("_exp")
		ti, _ := strconv.ParseInt(tim, 10, 64)
		ei, _ := strconv.ParseInt(exp, 10, 64)
		if ei-ti != tc.want {
			t.Errorf("Expiry %v: _exp - _tim = %d, want %d", tc.expiry, ei-ti, tc.want)
		}
	}
}
