package dnsupdate

import (
	"context"
	"encoding/binary"
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
