package config

import (
	"fmt"
	"net"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
)

// HistoryConfig configures the change history (docs/history.md): every
// change of a zone is recorded durably in <zone_dir>/.zoneapi/history/
// before the request that made it is answered, and read through GET
// /api/v1/changes and /api/v1/zones/{name}/changes. It is on unless Off.
type HistoryConfig struct {
	// Off turns the history off: nothing is recorded and the change
	// endpoints answer 404.
	Off bool `json:"off,omitempty"`
	// MaxAge drops entries older than this (whole segment files).
	// Default 90 days.
	MaxAge caddy.Duration `json:"max_age,omitempty"`
	// MaxSize bounds the history's bytes on disk (the oldest segment
	// files are dropped past it). Default 256 MiB.
	MaxSize int64 `json:"max_size,omitempty"`
	// SyncEach makes every request that changed a zone wait until its
	// entry is fsynced (concurrent requests share one fsync). By default
	// a request waits until the entry is written to the file, which
	// survives any crash of Caddy, and the fsync follows in the
	// background within 10 ms (one fsync for every entry written in that
	// time): an operating system crash may lose the last entries,
	// which are then recorded again from named's journal at start, as
	// external changes (docs/history.md).
	SyncEach bool `json:"sync_each,omitempty"`
	// NotifyListen is the address ("127.0.0.1:5399") where the module
	// receives named's NOTIFY messages, to record the changes made
	// outside the API (nsupdate, an edited zone file) as they happen:
	// add it to named.conf's also-notify (docs/history.md). Without it,
	// such changes are recorded when the API starts, reloads or thaws
	// the zone, or at the zone's next NOTIFY.
	NotifyListen string `json:"notify_listen,omitempty"`
}

// UnmarshalCaddyfile reads `history off` or
// `history { max_age <d>; max_size <bytes>; sync_each; notify_listen <addr> }`.
func (c *HistoryConfig) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		if d.Val() != "off" || d.NextArg() {
			return d.Errf("history: want `history off` or a block")
		}
		c.Off = true
		return nil
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "max_age":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("history max_age: want a positive duration such as 30d or 720h, got %q", v)
			}
			c.MaxAge = caddy.Duration(dur)
		case "max_size":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			n, err := humanize.ParseBytes(v)
			if err != nil || n == 0 || n > 1<<50 {
				return d.Errf("history max_size: want a size such as 512MiB, got %q", v)
			}
			c.MaxSize = int64(n)
		case "sync_each":
			if d.NextArg() {
				return d.ArgErr()
			}
			c.SyncEach = true
		case "notify_listen":
			if !d.AllArgs(&c.NotifyListen) {
				return d.ArgErr()
			}
		default:
			return d.Errf("history: unrecognized subdirective %q", d.Val())
		}
	}
	return nil
}

// On reports whether the history is recorded (c may be nil: on).
func (c *HistoryConfig) On() bool { return c == nil || !c.Off }

// Validate checks the history option without touching anything.
func (c *HistoryConfig) Validate() error {
	if c == nil || c.NotifyListen == "" {
		return nil
	}
	addr := c.NotifyAddr()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("history notify_listen %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("history notify_listen %q: must be a loopback address (named on this host sends the NOTIFY)", addr)
	}
	return nil
}

// NotifyAddr is notify_listen expanded.
func (c *HistoryConfig) NotifyAddr() string {
	if c == nil {
		return ""
	}
	return caddy.NewReplacer().ReplaceKnown(c.NotifyListen, "")
}
