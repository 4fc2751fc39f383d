// Command floorserver is the least work any Go HTTP front end of named
// does for a record add, as a floor for BenchmarkAgainstBaseline: for each
// request it reads the body, sends one TSIG-signed RFC 2136 UPDATE adding
// an A record to named over one kept-alive TCP connection, and answers
// 201 with a small JSON body. No routing, authentication, schema check,
// parsing of the body, prerequisites, logging or metrics.
//
//	floorserver <listen addr> <named addr> <key name> <secret> <zone>
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/miekg/dns"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: floorserver <listen addr> <named addr> <key name> <secret> <zone>")
		os.Exit(2)
	}
	listen, named, keyName, secret, zone := os.Args[1], os.Args[2], dns.Fqdn(os.Args[3]), os.Args[4], dns.Fqdn(os.Args[5])
	conn, err := net.Dial("tcp", named)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	secrets := map[string]string{keyName: secret}
	var (
		mu sync.Mutex
		n  int
	)
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		m := new(dns.Msg)
		m.SetUpdate(zone)
		m.Insert([]dns.RR{&dns.A{Hdr: dns.RR_Header{Name: fmt.Sprintf("floor%d.%s", n, zone), Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(192, 0, 2, 1)}})
		m.SetTsig(keyName, dns.HmacSHA256, 300, time.Now().Unix())
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		co := &dns.Conn{Conn: conn, TsigSecret: secrets}
		err := co.WriteMsg(m)
		var resp *dns.Msg
		if err == nil {
			resp, err = co.ReadMsg()
		}
		if err != nil || resp.Rcode != dns.RcodeSuccess {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"success":true}`))
	})
	fmt.Fprintln(os.Stderr, http.ListenAndServe(listen, nil))
	os.Exit(1)
}
