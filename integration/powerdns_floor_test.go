package integration

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// pdnsFloor sends, over one kept-alive TCP connection signed with named's
// TSIG key, the UPDATE a one-RRset PATCH (TXT REPLACE) of
// BenchmarkPowerDNSVersusPowerDNS becomes: the floor any client of named
// pays for that change. With pinned, the message is the one zone_api
// sends (prerequisites "the SOA is exactly the one last seen" and "no
// CNAME at the name", the next SOA added); without, the bare change
// (delete the RRset, add the record), named bumping the serial itself.
type pdnsFloor struct {
	name   string
	zone   string
	pinned bool
	conn   net.Conn
	tsig   map[string]string
	soa    *dns.SOA
	errs   int
}

func newPDNSFloor(b testing.TB, ns *testbind.Server, name, zone string, pinned bool) *pdnsFloor {
	conn, err := net.Dial("tcp", ns.DNSAddr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	f := &pdnsFloor{name: name, zone: zone, pinned: pinned, conn: conn,
		tsig: map[string]string{ns.TSIGKeyName + ".": ns.TSIGSecret}}
	if pinned {
		m := new(dns.Msg)
		m.SetQuestion(zone+".", dns.TypeSOA)
		r, err := dns.Exchange(m, ns.DNSAddr)
		if err != nil || len(r.Answer) == 0 {
			b.Fatalf("SOA of %s: %v", zone, err)
		}
		f.soa = r.Answer[0].(*dns.SOA)
	}
	return f
}

// send makes the i-th change (the PATCH loop's name and value) and returns
// its rcode as an HTTP-like status: 204 when named applied it.
func (f *pdnsFloor) send(keyName string, i int) int {
	owner := fmt.Sprintf("t%d.%s.", i%50, f.zone)
	m := new(dns.Msg)
	m.SetUpdate(f.zone + ".")
	var next *dns.SOA
	if f.pinned {
		m.Used([]dns.RR{dns.Copy(f.soa)})
		m.Answer = append(m.Answer, &dns.ANY{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeCNAME, Class: dns.ClassNONE}})
		next = dns.Copy(f.soa).(*dns.SOA)
		next.Serial++
		m.Ns = append(m.Ns, next)
	}
	m.Ns = append(m.Ns, &dns.ANY{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeTXT, Class: dns.ClassANY}})
	m.Ns = append(m.Ns, &dns.TXT{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{fmt.Sprintf("v%d", i)}})
	m.SetTsig(keyName+".", dns.HmacSHA256, 300, time.Now().Unix())
	_ = f.conn.SetDeadline(time.Now().Add(5 * time.Second))
	// A dns.Conn per message: it keeps the last request's MAC and would
	// sign the next request as if it were a response.
	co := &dns.Conn{Conn: f.conn, TsigSecret: f.tsig}
	if err := co.WriteMsg(m); err != nil {
		return 0
	}
	r, err := co.ReadMsg()
	if err != nil || r.Rcode != dns.RcodeSuccess {
		if f.errs++; f.errs < 3 {
			fmt.Printf("%s: %v %v\n", f.name, err, r)
		}
		return 500
	}
	if next != nil {
		f.soa = next
	}
	return 204
}

// procCPU returns the CPU time (user and system) the process pid has used
// so far, its ended threads included (/proc/<pid>/stat, in clock ticks of
// 10 ms: a round of 300 requests reads it to about 0.03 ms per request),
// or 0 when it cannot be read.
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// threadsCPU returns the CPU time the live threads of process pid have
// used so far, in nanoseconds (/proc/<pid>/task/*/schedstat): precise
// enough for one request, but without the threads that ended (Caddy's and
// named's threads live as long as the process), or 0 when it cannot be
// read.
func threadsCPU(pid int) time.Duration {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue
		}
		var ns int64
		fmt.Sscan(string(b), &ns)
		sum += ns
	}
	return time.Duration(sum)
}
