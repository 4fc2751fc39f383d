package dnsupdate

import (
	"errors"
	"net"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// NotifyListener receives NOTIFY messages (RFC 1996) on a UDP address, as
// a secondary does, and reports each zone named says changed. A NOTIFY is
// only a hint (RFC 1996 section 3.11): the receiver checks the zone
// itself, so the messages need no signature.
type NotifyListener struct {
	conn net.PacketConn
	wg   sync.WaitGroup
}

// ListenNotify listens on addr ("127.0.0.1:5399"; port 0 picks one) and
// calls fn with the zone (no final dot) and, when the NOTIFY carries its
// SOA, the serial, for every NOTIFY it receives, after answering it. fn
// runs on the listener's goroutine: it must return quickly (hand the work
// to another goroutine).
func ListenNotify(addr string, fn func(zone string, serial uint32, hasSerial bool)) (*NotifyListener, error) {
	conn, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, err
	}
	l := &NotifyListener{conn: conn}
	l.wg.Add(1)
	go l.serve(fn)
	return l, nil
}

// Addr returns the address listened on.
func (l *NotifyListener) Addr() string { return l.conn.LocalAddr().String() }

// Close stops the listener and waits for its goroutine.
func (l *NotifyListener) Close() error {
	err := l.conn.Close()
	l.wg.Wait()
	return err
}

func (l *NotifyListener) serve(fn func(string, uint32, bool)) {
	defer l.wg.Done()
	buf := make([]byte, dns.MaxMsgSize)
	for {
		n, from, err := l.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		m := new(dns.Msg)
		if m.Unpack(buf[:n]) != nil || m.Response || m.Opcode != dns.OpcodeNotify || len(m.Question) != 1 {
			continue
		}
		r := new(dns.Msg)
		r.SetReply(m)
		r.Authoritative = true
		if out, err := r.Pack(); err == nil {
			_, _ = l.conn.WriteTo(out, from)
		}
		zone := zonemodel.ZoneOfOrigin(strings.ToLower(m.Question[0].Name))
		var serial uint32
		has := false
		for _, rr := range m.Answer {
			if soa, ok := rr.(*dns.SOA); ok {
				serial, has = soa.Serial, true
			}
		}
		fn(zone, serial, has)
	}
}
