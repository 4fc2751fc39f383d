package dnsupdate

import (
	"context"
	"reflect"
	"testing"

	"github.com/miekg/dns"
)

// TestAppliedHoldsTheMessage checks that the Applied callbacks of the
// writes merged into one message run between their Holds and the
// releases, so that the history writes the message's entries together
// (TestHistoryCrashSafety once found an add named served that the
// history lacked: a crash between two entries of one message).
func TestAppliedHoldsTheMessage(t *testing.T) {
	var got []string
	hold := func() func() {
		got = append(got, "hold")
		return func() { got = append(got, "release") }
	}
	rr, err := dns.NewRR("a.example.com. 60 IN A 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	w := func(name string) *write {
		return &write{added: []dns.RR{rr}, hold: hold, applied: func(Applied) { got = append(got, name) }}
	}
	u := &Updater{}
	u.applied(context.Background(), "example.com", []*write{w("first"), {added: []dns.RR{rr}}, w("second")}, serials{old: 1, new: 2, hasOld: true, hasNew: true}, nil)
	want := []string{"hold", "hold", "first", "second", "release", "release"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
}
