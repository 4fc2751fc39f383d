package dnsupdate

import (
	"bufio"
	"encoding/binary"
	"net"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// countingConn counts the reads made on a connection.
type countingConn struct {
	net.Conn
	reads atomic.Int32
}

func (c *countingConn) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Conn.Read(p)
}

// TestRoundTripReadsAnswerOnce: an answer named sends in one segment (its
// two-byte length and its body together) is read with one read of the
// connection, not one for the length and one for the body; bytes past the
// answer are reported, so that the connection is not reused.
func TestRoundTripReadsAnswerOnce(t *testing.T) {
	for _, extra := range []int{0, 3} {
		client, server := net.Pipe()
		defer client.Close()
		defer server.Close()
		go func() {
			co := &dns.Conn{Conn: server}
			q, err := co.ReadMsg()
			if err != nil {
				return
			}
			a := new(dns.Msg)
			a.SetReply(q)
			body, err := a.Pack()
			if err != nil {
				return
			}
			out := binary.BigEndian.AppendUint16(nil, uint16(len(body)))
			out = append(out, body...)
			out = append(out, make([]byte, extra)...)
			_, _ = server.Write(out) // one write: net.Pipe hands it to one read
		}()
		cc := &countingConn{Conn: client}
		m := new(dns.Msg)
		m.SetQuestion("example.test.", dns.TypeSOA)
		r, written, rest, err := roundTrip(cc, bufio.NewReaderSize(nil, answerBuffer), nil, m)
		if err != nil || !written || r == nil || r.Id != m.Id {
			t.Fatalf("extra %d: answer %v, written %v, err %v", extra, r, written, err)
		}
		if n := cc.reads.Load(); n != 1 {
			t.Errorf("extra %d: the answer took %d reads of the connection, want 1", extra, n)
		}
		if rest != (extra > 0) {
			t.Errorf("extra %d: bytes past the answer reported %v", extra, rest)
		}
	}
}
