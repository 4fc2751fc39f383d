package jsonbody

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// patchBody is a PowerDNS PATCH body of n RRsets of one record each.
func patchBody(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"rrsets":[`)
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"name":"k%04d.example.com.","type":"A","ttl":300,"changetype":"REPLACE","records":[{"content":"192.0.2.2","disabled":false}]}`, i)
	}
	sb.WriteString("]}")
	return []byte(sb.String())
}

// patchLike has the shape of the PowerDNS API's PATCH body.
type patchLike struct {
	RRsets *[]struct {
		Name       string       `json:"name"`
		Type       string       `json:"type"`
		TTL        *uint32      `json:"ttl,omitempty"`
		ChangeType string       `json:"changetype"`
		Records    []recordLike `json:"records"`
	} `json:"rrsets"`
}

// BenchmarkLenientAgainstUnmarshal: the PowerDNS API's decode of a PATCH
// body (1 and 1,000 RRsets) by jsonbody.Lenient against json.Unmarshal,
// which it replaced, in the same loop: ratio-x is Lenient's time over
// Unmarshal's (below 1: faster).
func BenchmarkLenientAgainstUnmarshal(b *testing.B) {
	for _, n := range []int{1, 1000} {
		body := patchBody(n)
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			var base, ours time.Duration
			unmarshal := func() {
				t := time.Now()
				var u patchLike
				if err := json.Unmarshal(body, &u); err != nil {
					b.Fatal(err)
				}
				base += time.Since(t)
			}
			lenient := func() {
				t := time.Now()
				var l patchLike
				if err := Decode(body, &l, Lenient); err != nil || len(*l.RRsets) != n {
					b.Fatal(err)
				}
				ours += time.Since(t)
			}
			b.SetBytes(int64(len(body)))
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 { // each first in turn: the GC of one is not all billed to the other
					unmarshal()
					lenient()
				} else {
					lenient()
					unmarshal()
				}
			}
			b.ReportMetric(float64(ours)/float64(base), "ratio-x")
		})
	}
}
