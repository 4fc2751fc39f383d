package zoneservice

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
)

// NotifyListener receives named's NOTIFYs on one address (the history's
// notify_listen) and hands each zone to its receiver, which may be
// replaced while it listens: a front end that outlives config
// generations keeps one per address across them (the Caddy module, in a
// caddy.UsagePool: Destruct closes it), and the newest generation's
// server receives the notices (SetReceiver).
type NotifyListener struct {
	l      *dnsupdate.NotifyListener
	mu     sync.Mutex
	notice func(string)
}

// ListenNotify listens for NOTIFYs on addr, handing each zone to notice.
func ListenNotify(addr string, notice func(zone string)) (*NotifyListener, error) {
	nl := &NotifyListener{notice: notice}
	l, err := dnsupdate.ListenNotify(addr, func(zone string, _ uint32, _ bool) {
		nl.mu.Lock()
		f := nl.notice
		nl.mu.Unlock()
		f(zone)
	})
	if err != nil {
		return nil, err
	}
	nl.l = l
	return nl, nil
}

// SetReceiver makes notice the receiver of the NOTIFYs.
func (nl *NotifyListener) SetReceiver(notice func(zone string)) {
	nl.mu.Lock()
	nl.notice = notice
	nl.mu.Unlock()
}

// Destruct closes the listener (caddy.Destructor).
func (nl *NotifyListener) Destruct() error { return nl.l.Close() }

// FollowHistory keeps the change history up to date until ctx ends:
// named's NOTIFYs, which listen delivers (on a listener at addr, taken
// with listen and given back when ctx ends; none when addr is ""), go to
// Notices; listen is tried again every 5 s until it succeeds; then
// CatchUpOnce records what changed while nothing listened. Without a
// history it returns at once.
func (s *Server) FollowHistory(ctx context.Context, addr string, listen func(addr string, notice func(zone string)) (release func(), err error)) {
	if s.root.History == nil {
		return
	}
	// A NOTIFY names no view: the server hands it to the default view's
	// service and to every other view's that follows the zone
	// (docs/views.md).
	notice := s.Notices(ctx)
	if addr != "" {
		for {
			release, err := listen(addr, notice)
			if err == nil {
				defer release()
				break
			}
			s.root.log().Warn("history: cannot listen for named's NOTIFY; retrying", zap.String("notify_listen", addr), zap.Error(err))
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Second):
			}
		}
	}
	s.CatchUpOnce(ctx)
	<-ctx.Done()
}
