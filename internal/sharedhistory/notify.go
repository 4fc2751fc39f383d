package sharedhistory

import (
	"sync"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// notifyPool holds the NOTIFY listeners by address
// (*zoneservice.NotifyListener),
// shared by the config generations: a reload hands the listener over (the
// new generation takes it before the old one gives it back), and the
// newest generation's service receives the notices.
var notifyPool = caddy.NewUsagePool()

// AcquireNotify listens on addr (or shares the listener there) and makes
// notice the receiver of its NOTIFYs; release gives it back. The zone
// server follows the history with it (zoneservice.Server.FollowHistory).
func AcquireNotify(addr string, notice func(string)) (release func(), err error) {
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
