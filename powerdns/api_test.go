package powerdns

import (
	"testing"
	"time"
)

// TestWithUptime: PowerDNS's uptime statistic is the seconds since
// named's boot-time (rndc status's "boot time", RFC 1123 in GMT).
func TestWithUptime(t *testing.T) {
	now := time.Date(2026, 11, 27, 11, 31, 42, 0, time.UTC)
	got := withUptime([][2]string{{"boot-time", "Fri, 27 Nov 2026 11:29:58 GMT"}, {"version", "BIND 9.18"}}, now)
	if len(got) != 3 || got[0] != [2]string{"uptime", "104"} {
		t.Errorf("withUptime = %v, want uptime 104 first", got)
	}
	if got := withUptime([][2]string{{"version", "BIND 9.18"}}, now); len(got) != 1 {
		t.Errorf("without a boot time: %v", got)
	}
}
