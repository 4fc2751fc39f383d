package logfilter

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		def     Level
		levels  map[string]Level // logger name → level in force
		ignored int
		err     string
	}{
		{in: "", def: LevelInfo},
		{in: "warn", def: LevelWarn},
		{in: "DEBUG", def: LevelDebug},
		{in: "info,zone_api::rndc=debug", def: LevelInfo, levels: map[string]Level{
			"http.handlers.zone_api.rndc": LevelDebug, "http.handlers.zone_api.http": LevelInfo, "http.handlers.zone_api": LevelInfo}},
		{in: "error, http.handlers.zone_api.auth=trace ,zone_api=warn", def: LevelError, levels: map[string]Level{
			"http.handlers.zone_api.auth": LevelTrace, "http.handlers.zone_api.rndc": LevelWarn}},
		{in: "zone_api::rndc", def: LevelInfo, levels: map[string]Level{"http.handlers.zone_api.rndc": LevelTrace}},
		{in: "zone_api=off", def: LevelInfo, levels: map[string]Level{"http.handlers.zone_api.http": LevelOff}},
		{in: "info,bindcar=debug,tower_http=info", def: LevelInfo, ignored: 2},
		{in: "verbose", err: `neither a level`},
		{in: "info,debgu", err: `neither a level`},
		{in: "info,zone_api=loud", err: `unknown level "loud"`},
		{in: "info,warn", err: "more than one default level"},
		{in: "zone_api:rndc=debug", err: "malformed target"},
		{in: "=debug", err: "malformed target"},
		{in: "zone api=debug", err: "malformed target"},
	}
	for _, tc := range cases {
		f, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if f.Default != tc.def || len(f.Ignored) != tc.ignored {
			t.Errorf("%q: default %d ignored %v", tc.in, f.Default, f.Ignored)
		}
		for name, want := range tc.levels {
			if got := f.levelFor(name); got != want {
				t.Errorf("%q: level of %s = %d, want %d", tc.in, name, got, want)
			}
		}
	}
}

// TestFilterCore logs at every level on several loggers and checks which
// entries pass.
func TestFilterCore(t *testing.T) {
	cases := []struct {
		filter string
		want   []string // "logger:level" entries that pass
	}{
		{"warn", []string{"zone_api:warn", "zone_api.rndc:warn"}},
		{"info,zone_api::rndc=debug", []string{"zone_api:info", "zone_api:warn", "zone_api.rndc:debug", "zone_api.rndc:info", "zone_api.rndc:warn"}},
		{"trace", []string{"zone_api:debug", "zone_api:info", "zone_api:warn", "zone_api.rndc:debug", "zone_api.rndc:info", "zone_api.rndc:warn", "zone_api.rndc.trace:debug"}},
		{"debug", []string{"zone_api:debug", "zone_api:info", "zone_api:warn", "zone_api.rndc:debug", "zone_api.rndc:info", "zone_api.rndc:warn"}},
		{"error,zone_api::rndc=trace", []string{"zone_api.rndc:debug", "zone_api.rndc:info", "zone_api.rndc:warn", "zone_api.rndc.trace:debug"}},
	}
	for _, tc := range cases {
		f, err := Parse(tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		core, logs := observer.New(zapcore.DebugLevel)
		base := zap.New(f.Wrap(core)).Named("http.handlers.zone_api")
		for _, l := range []*zap.Logger{base, base.Named("rndc")} {
			l.Debug("d")
			l.Info("i")
			l.Warn("w")
		}
		base.Named("rndc").Named("trace").Debug("t") // trace events travel at debug
		var got []string
		for _, e := range logs.All() {
			got = append(got, strings.TrimPrefix(e.LoggerName, "http.handlers.")+":"+e.Level.String())
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q:\n got  %v\n want %v", tc.filter, got, tc.want)
		}
	}
}
