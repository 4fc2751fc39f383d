package zoneservice

import (
	"context"
	"errors"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// TestStatisticsStatus: the restart watch's boot time comes from the
// statistics channel's server counters when they can be read, from rndc
// status otherwise, in rndc's form either way, so that switching between
// the two is not taken for a restart.
func TestStatisticsStatus(t *testing.T) {
	ctx := context.Background()
	rndcCalls := 0
	fallback := func(context.Context) (*rndc.ServerStatus, error) {
		rndcCalls++
		return &rndc.ServerStatus{BootTime: "Sat, 28 Nov 2026 00:42:44 GMT", Version: "9.18"}, nil
	}
	var body []byte
	var serverErr error
	server := func(context.Context) ([]byte, error) { return body, serverErr }
	status := StatisticsStatus(server, fallback)

	body = []byte(`{"json-stats-version":"1.8","boot-time":"2026-11-28T00:42:44.512Z","config-time":"2026-11-28T00:42:45.001Z","opcodes":{"QUERY":3}}`)
	st, err := status(ctx)
	if err != nil || st.BootTime != "Sat, 28 Nov 2026 00:42:44 GMT" || rndcCalls != 0 {
		t.Fatalf("from the statistics: %+v, %v, %d rndc status", st, err, rndcCalls)
	}
	fromStats := st.BootTime

	serverErr = errors.New("connection refused")
	st, err = status(ctx)
	if err != nil || st.BootTime != fromStats || rndcCalls != 1 {
		t.Fatalf("statistics failing: %+v, %v, %d rndc status; want rndc's boot time %q", st, err, rndcCalls, fromStats)
	}

	serverErr, body = nil, []byte(`{"boot-time":""}`)
	if st, err = status(ctx); err != nil || st.BootTime != fromStats || rndcCalls != 2 {
		t.Fatalf("statistics without a boot time: %+v, %v, %d rndc status", st, err, rndcCalls)
	}

	// No statistics channel: rndc status as it is.
	if st, err = StatisticsStatus(nil, fallback)(ctx); err != nil || st.Version != "9.18" || rndcCalls != 3 {
		t.Fatalf("without a statistics channel: %+v, %v, %d rndc status", st, err, rndcCalls)
	}
	// Both failing: the watch's error (named down).
	down := func(context.Context) (*rndc.ServerStatus, error) { return nil, errors.New("down") }
	serverErr = errors.New("down")
	if _, err = StatisticsStatus(server, down)(ctx); err == nil {
		t.Fatal("no error with both the statistics and rndc failing")
	}
}
