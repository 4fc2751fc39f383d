package module

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
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

// unmarshalCaddyfile reads `history off` or
// `history { max_age <d>; max_size <bytes>; sync_each; notify_listen <addr> }`.
func (c *HistoryConfig) unmarshalCaddyfile(d *caddyfile.Dispenser) error {
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

// on reports whether the history is recorded (c may be nil: on).
func (c *HistoryConfig) on() bool { return c == nil || !c.Off }

// validate checks the history option without touching anything.
func (c *HistoryConfig) validate() error {
	if c == nil || c.NotifyListen == "" {
		return nil
	}
	addr := c.notifyAddr()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("history notify_listen %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("history notify_listen %q: must be a loopback address (named on this host sends the NOTIFY)", addr)
	}
	return nil
}

// historyDir is where the history of a zone directory is kept.
func historyDir(zoneDir string) string { return filepath.Join(zoneDir, ".zoneapi", "history") }

// open opens (or shares) the history that refs holds (acquireHistory in
// Provision); Cleanup gives it back once the generation's last request
// has finished.
func (c *HistoryConfig) open(refs *sharedRefs, logger *zap.Logger) (*history.Log, error) {
	if !c.on() || refs.history == nil {
		return nil, nil
	}
	var opts history.Options
	if c != nil {
		opts.MaxAge, opts.MaxSize, opts.SyncEach = time.Duration(c.MaxAge), c.MaxSize, c.SyncEach
	}
	l, err := refs.history.open(opts)
	if errors.Is(err, history.ErrLocked) {
		// Another process (an instance sharing the zone directory)
		// records the history; this one serves without it.
		logger.Warn("the change history is written by another process sharing the zone directory; this instance records none", zap.String("zone_dir", filepath.Dir(filepath.Dir(refs.history.dir))))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening the change history: %w", err)
	}
	return l, nil
}

// watch, started by Provision, has the zone server follow the history
// (zoneservice.Server.FollowHistory) once the backend is resolved (by the
// first request, or the restart watch a couple of seconds after start;
// the watch never resolves it itself, so nothing touches the disk before
// that, and `caddy validate` touches nothing): changes made while the API
// was not running, or whose entry a crash lost (zoneservice.Service.CatchUp),
// and named's NOTIFYs on notify_listen until ctx ends (Cleanup).
func (c *HistoryConfig) watch(ctx context.Context, resolved func() *backend) {
	if !c.on() {
		return
	}
	var b *backend
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
		if b = resolved(); b != nil && b.svc.History != nil {
			break
		}
	}
	b.server.FollowHistory(ctx, c.notifyAddr(), acquireNotify)
}

// notifyAddr is notify_listen expanded.
func (c *HistoryConfig) notifyAddr() string {
	if c == nil {
		return ""
	}
	return caddy.NewReplacer().ReplaceKnown(c.NotifyListen, "")
}

// notifyPool holds the NOTIFY listeners by address
// (*zoneservice.NotifyListener),
// shared by the config generations: a reload hands the listener over (the
// new generation takes it before the old one gives it back), and the
// newest generation's service receives the notices.
var notifyPool = caddy.NewUsagePool()

// acquireNotify listens on addr (or shares the listener there) and makes
// notice the receiver of its NOTIFYs; release gives it back.
func acquireNotify(addr string, notice func(string)) (release func(), err error) {
	v, _, err := notifyPool.LoadOrNew(addr, func() (caddy.Destructor, error) {
		nl, err := zoneservice.ListenNotify(addr, notice)
		if err != nil {
			return nil, err
		}
		return nl, nil
	})
	if err != nil {
		return nil, err
	}
	v.(*zoneservice.NotifyListener).SetReceiver(notice)
	var once sync.Once
	return func() {
		once.Do(func() { _, _ = notifyPool.Delete(addr) })
	}, nil
}

// withActor puts the request's actor (for the change history) in its
// context: the identity as the audit line names it, the front end and
// the request id (X-Request-Id when the client sent one, else Caddy's
// {http.request.uuid}).
func withActor(r *http.Request, rt *route) *http.Request {
	st := authOf(r)
	a := zoneservice.Actor{Identity: "anonymous", Frontend: "rest", RequestID: frontend.RequestID(r)}
	if st.id != nil {
		a.Identity = st.id.ID
		if st.id.ID == LocalPrincipal {
			a.Frontend = "caddydns"
		}
	}
	if rt.pdns {
		a.Frontend = "powerdns"
	}
	return r.WithContext(zoneservice.WithActor(r.Context(), a))
}

// handleListChanges answers GET /api/v1/changes (every zone the identity
// may read) and GET /api/v1/zones/{name}/changes: the zone and the view
// resolved here, the page of the history by package events
// (events.API.ListChanges).
func (a *restAPI) handleListChanges(w http.ResponseWriter, r *http.Request, p params) {
	zone := ""
	if p.route != nil && strings.Contains(p.route.template, "{name}") {
		var ok bool
		if zone, ok = zoneName(w, p); !ok {
			return
		}
	}
	// ?view= selects the entries of one view, read as every route reads
	// it; the default view's zones are recorded without a view.
	view, viewErr := p.view, p.viewErr
	if !takesView(p.route) {
		view, viewErr = requestView(r)
		view = a.views.named(view)
	}
	if !a.checkView(w, view, viewErr) {
		return
	}
	b, ok := a.backendOr500(w)
	if !ok {
		return
	}
	if b.svc.History == nil {
		writeError(w, http.StatusNotFound, "the change history is off (history off in the configuration)")
		return
	}
	body, err := events.ReadChanges(r.URL.Query(), b.svc.History, grantOf(r), events.Page{Zone: zone, View: view,
		DefaultView: view != "" && view == a.views.def, Limit: defaultListLimit, MaxLimit: maxListLimit})
	var qe *events.QueryError
	switch {
	case errors.As(err, &qe):
		writeError(w, http.StatusBadRequest, "invalid query: %s", problemList(qe.Problems))
	case err != nil:
		a.logger.Error("reading the change history", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "reading the change history: %v", err)
	default:
		writeJSON(w, http.StatusOK, body)
	}
}

// resolved returns the backend once a request (or the restart watch)
// resolved it, else nil; it never resolves it.
func (c *backendCell) resolved() *backend {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.backend
}
