package sharedhistory

import (
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TestNotifyListenerHandedOver: two config generations that listen for
// named's NOTIFY on one address share the listener (the second does not
// fail on the address in use), the newest receives the notices, and the
// address is free again once both gave it back.
func TestNotifyListenerHandedOver(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	old, cur := make(chan string, 4), make(chan string, 4)
	releaseOld, err := AcquireNotify(addr, func(z string) { old <- z })
	if err != nil {
		t.Fatal(err)
	}
	releaseCur, err := AcquireNotify(addr, func(z string) { cur <- z })
	if err != nil {
		t.Fatalf("the new generation cannot take the listener over: %v", err)
	}
	releaseOld()
	releaseOld() // a second release gives nothing back
	m := new(dns.Msg)
	m.SetNotify("handover.test.")
	if _, err := dns.Exchange(m, addr); err != nil {
		t.Fatalf("NOTIFY after the old generation released the listener: %v", err)
	}
	select {
	case z := <-cur:
		if z != "handover.test" && z != "handover.test." {
			t.Errorf("notice for %q", z)
		}
	case z := <-old:
		t.Fatalf("the old generation received the notice for %q", z)
	case <-time.After(10 * time.Second):
		t.Fatal("no notice")
	}
	releaseCur()
	pc, err = net.ListenPacket("udp", addr)
	if err != nil {
		t.Fatalf("the address is still in use after the last release: %v", err)
	}
	pc.Close()
}
