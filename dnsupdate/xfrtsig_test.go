package dnsupdate

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
)

// TestPooledTransferRefusesUnsignedMessage: a transfer on a pooled
// connection (the PowerDNS search's AXFR, the writer's IXFR) whose first
// message is signed but whose next one, holding a record and the closing
// SOA, is not (an on-path forger's tail: no key needed) fails, as the DNS
// library's transfers fail (every message signed, as named signs them),
// instead of returning the forged record. Failed before: the pooled
// transfers checked only the first message's signature.
func TestPooledTransferRefusesUnsignedMessage(t *testing.T) {
	const zone = "forged.test"
	soa, err := dns.NewRR(zone + ". 300 IN SOA ns1.forged.test. hostmaster.forged.test. 7 3600 600 86400 300")
	if err != nil {
		t.Fatal(err)
	}
	ns, _ := dns.NewRR(zone + ". 300 IN NS ns1.forged.test.")
	forged, _ := dns.NewRR("www." + zone + ". 300 IN A 203.0.113.66")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go forgeTail(conn, soa, ns, forged)
		}
	}()
	c, err := NewClient(ln.Addr().String(), &TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: dnstest.TSIGSecret}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	if rrs, err := c.transferUpTo(ctx, zone, 0); err == nil {
		t.Fatalf("the library's AXFR accepted the unsigned message (the contrast shows nothing): %v", rrs)
	}
	if rrs, err := c.axfrPooled(ctx, zone); err == nil {
		t.Errorf("pooled AXFR with an unsigned message accepted: %v", rrs)
	}
	if d, full, err := c.ixfrPooled(ctx, zone, 6); err == nil {
		t.Errorf("pooled IXFR with an unsigned message accepted: %v %v", d, full)
	}
}

// forgeTail answers each transfer on conn with a signed message holding
// the SOA and NS, then an unsigned one holding forged and the SOA again.
func forgeTail(conn net.Conn, soa, ns, forged dns.RR) {
	defer conn.Close()
	for {
		var l [2]byte
		if _, err := io.ReadFull(conn, l[:]); err != nil {
			return
		}
		p := make([]byte, binary.BigEndian.Uint16(l[:]))
		if _, err := io.ReadFull(conn, p); err != nil {
			return
		}
		q := new(dns.Msg)
		if q.Unpack(p) != nil || q.IsTsig() == nil {
			return
		}
		first := new(dns.Msg)
		first.SetReply(q)
		first.Answer = []dns.RR{soa, ns}
		first.SetTsig(strings.ToLower(dnstest.TSIGKey), dns.HmacSHA256, 300, time.Now().Unix())
		w1, _, err := dns.TsigGenerate(first, dnstest.TSIGSecret, q.IsTsig().MAC, false)
		if err != nil {
			return
		}
		tail := new(dns.Msg)
		tail.SetReply(q)
		tail.Answer = []dns.RR{forged, soa}
		w2, err := tail.Pack()
		if err != nil {
			return
		}
		for _, w := range [][]byte{w1, w2} {
			if _, err := conn.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(w))), w...)); err != nil {
				return
			}
		}
	}
}

// TestPooledTransferCancelledAtItsEnd: a transfer on a pooled connection
// whose context ends once the answer is read, before the transfer stops
// watching it, fails, so that its connection is closed rather than
// pooled: the watch's deadline in the past lands on the connection later
// (context.AfterFunc runs it in a goroutine of its own), where it would
// fail the next exchange on it, an UPDATE's answer then lost (outcome
// unknown). Failed before: the transfer succeeded and its connection
// went back to the pool with the deadline on its way.
func TestPooledTransferCancelledAtItsEnd(t *testing.T) {
	const zone = "cancel.test"
	soa, err := dns.NewRR(zone + ". 300 IN SOA ns1.cancel.test. hostmaster.cancel.test. 7 3600 600 86400 300")
	if err != nil {
		t.Fatal(err)
	}
	ns, _ := dns.NewRR(zone + ". 300 IN NS ns1.cancel.test.")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		var l [2]byte
		if _, err := io.ReadFull(conn, l[:]); err != nil {
			return
		}
		p := make([]byte, binary.BigEndian.Uint16(l[:]))
		if _, err := io.ReadFull(conn, p); err != nil {
			return
		}
		q := new(dns.Msg)
		if q.Unpack(p) != nil {
			return
		}
		a := new(dns.Msg)
		a.SetReply(q)
		a.Answer = []dns.RR{soa, ns, soa}
		w, _ := a.Pack()
		_, _ = conn.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(w))), w...))
		_, _ = io.Copy(io.Discard, conn)
	}()
	c, err := NewClient(ln.Addr().String(), nil, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	conn := &cancelAtEnd{Conn: raw, cancel: cancel, late: make(chan struct{})}
	m := new(dns.Msg)
	m.SetAxfr(zone + ".")
	rrs, err := c.xfrOn(ctx, conn, zone, m, 0)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want the context's error, got %v", err)
		}
		return
	}
	select {
	case <-conn.late:
		t.Fatalf("the transfer succeeded (%d records), and a deadline in the past was set on its connection afterwards", len(rrs))
	case <-time.After(2 * time.Second):
		t.Fatal("the context's watch did not run: the test shows nothing")
	}
}

// cancelAtEnd cancels the context at its second read (the answer's
// body: the whole of a one-message answer), and closes late when a
// deadline in the past is set on it.
type cancelAtEnd struct {
	net.Conn
	reads  int
	cancel func()
	late   chan struct{}
}

func (c *cancelAtEnd) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.reads++; c.reads == 2 {
		c.cancel()
	}
	return n, err
}

func (c *cancelAtEnd) SetDeadline(t time.Time) error {
	if t.Equal(time.Unix(1, 0)) {
		close(c.late)
	}
	return c.Conn.SetDeadline(t)
}
