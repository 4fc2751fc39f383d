package events

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/latewatch"
)

// TestPosterCancelledAtItsEnd: a message on the kept-alive connection
// whose context ends once the answer is read, before the attempt stops
// watching it, fails with the context's error and the connection is
// closed rather than kept: the watch's deadline in the past lands on the
// connection later (context.AfterFunc runs it in a goroutine of its
// own), possibly while the next message waits for its answer, which then
// fails. Failed before: the attempt succeeded, the connection was kept,
// and the next message on it timed out once the deadline landed.
func TestPosterCancelledAtItsEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if _, err := c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	s, _ := NewSigner(testSecret)
	p, err := newPoster("http://"+ln.Addr().String()+"/", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// The watch's deadline lands in the middle of the next message.
	conn := latewatch.New(raw)
	// As if an earlier message had opened it.
	p.conn, p.br = conn, bufio.NewReaderSize(conn, 4<<10)

	inner, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx := &cancelAtErr{Context: inner, cancel: cancel}
	ctx.armed.Store(true)
	err = p.post(ctx, s, "evt_1", []byte(`{}`))
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want the context's error, got %v", err)
		}
		select {
		case <-conn.Closed:
		default:
			t.Fatal("the attempt failed but its connection was not closed")
		}
		if err := p.post(context.Background(), s, "evt_2", []byte(`{}`)); err != nil {
			t.Fatalf("the next message (on a new connection): %v", err)
		}
		return
	}
	select {
	case <-conn.Late:
	case <-time.After(2 * time.Second):
		t.Fatal("the context's watch did not run: the test shows nothing")
	}
	if err := p.post(context.Background(), s, "evt_2", []byte(`{}`)); err != nil {
		t.Fatalf("the cancelled attempt succeeded and kept its connection, where the next message failed: %v", err)
	}
	t.Fatal("the cancelled attempt succeeded and kept its connection with a deadline in the past on its way")
}

// cancelAtErr cancels its context the first time its Err is asked for
// while armed (after answering it): the poster asks once the answer is
// read, just before it stops watching the context.
type cancelAtErr struct {
	context.Context
	cancel func()
	armed  atomic.Bool
}

func (c *cancelAtErr) Err() error {
	err := c.Context.Err()
	if c.armed.CompareAndSwap(true, false) {
		c.cancel()
	}
	return err
}
