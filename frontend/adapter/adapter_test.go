package adapter

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// fakeControl is named's control channel below a real zone service: it
// records the commands sent and answers them as told; a command it does
// not implement panics (the nil embedded Control).
type fakeControl struct {
	zoneservice.Control
	calls  []string
	answer string
	err    error
	status *rndc.ServerStatus
}

func (c *fakeControl) Retransfer(_ context.Context, zone string) (string, error) {
	c.calls = append(c.calls, "retransfer "+zone)
	return c.answer, c.err
}

func (c *fakeControl) Status(context.Context) (*rndc.ServerStatus, error) {
	c.calls = append(c.calls, "status")
	return c.status, c.err
}

// zones is a Zones over a zone service with a real store in a temporary
// directory and c as named's control channel.
func zones(t *testing.T, c *fakeControl) Zones {
	t.Helper()
	st, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &zoneservice.Service{Store: st, Control: c}
	return Zones{Service: func(context.Context) (*zoneservice.Service, error) { return s, nil }}
}

// TestRetransferCallsService: Zones.Retransfer is the service's
// Retransfer (rndc retransfer), returning named's answer, and its error
// within a *frontend.CallError naming the zone.
func TestRetransferCallsService(t *testing.T) {
	c := &fakeControl{answer: "zone refresh queued"}
	z := zones(t, c)
	text, err := z.Retransfer(context.Background(), "sec.test")
	if err != nil || text != "zone refresh queued" || !slices.Equal(c.calls, []string{"retransfer sec.test"}) {
		t.Fatalf("Retransfer: %q, %v; calls %q", text, err, c.calls)
	}
	c.err = errors.New("rndc: 'retransfer' failed: not a secondary zone")
	_, err = z.Retransfer(context.Background(), "pri.test")
	var ce *frontend.CallError
	if !errors.As(err, &ce) || ce.Zone != "pri.test" {
		t.Fatalf("Retransfer error %v (%T), want a *frontend.CallError for pri.test", err, err)
	}
	var se *zonemodel.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("Retransfer error %v: no *zonemodel.ServiceError within", err)
	}
}

// TestStatisticsCallsService: Zones.Statistics is the service's
// ServerStatus (rndc status), its fields in name order with spaces as
// dashes.
func TestStatisticsCallsService(t *testing.T) {
	c := &fakeControl{status: &rndc.ServerStatus{Fields: map[string]string{"zone count": "3", "boot time": "x", "version": "BIND 9"}}}
	got, err := zones(t, c).Statistics(context.Background())
	want := [][2]string{{"boot-time", "x"}, {"version", "BIND 9"}, {"zone-count", "3"}}
	if err != nil || !slices.Equal(got, want) || !slices.Equal(c.calls, []string{"status"}) {
		t.Fatalf("Statistics: %q, %v; calls %q; want %q", got, err, c.calls, want)
	}
}

// TestImportAdmittedByGate: Zones.Import asks zone_api's gate first; a
// refusal is the gate's *frontend.ImportsBusy within a
// *frontend.CallError naming the zone, and the zone service is not
// reached.
func TestImportAdmittedByGate(t *testing.T) {
	busy := &frontend.ImportsBusy{Status: 429, Message: "too many imports", RetryAfter: 1}
	z := Zones{
		Service: func(context.Context) (*zoneservice.Service, error) {
			t.Fatal("the service was reached")
			return nil, nil
		},
		EnterImport: func(string) (func(), error) { return nil, busy },
	}
	res, err := z.Import(context.Background(), "new.test", &zonemodel.ImportSource{File: []byte("")}, "")
	var ce *frontend.CallError
	var ib *frontend.ImportsBusy
	if res != nil || !errors.As(err, &ce) || ce.Zone != "new.test" || !errors.As(err, &ib) || ib != busy {
		t.Fatalf("Import: %v, %v (%T), want the gate's refusal for new.test", res, err, err)
	}
}
