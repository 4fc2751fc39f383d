package history

import (
	"errors"
	"os"
	"time"
)

// Retention: the history keeps entries for Options.MaxAge and at most
// Options.MaxSize bytes of segments; older segments are removed whole.

// prune drops the segments the retention no longer keeps (never the
// active one). l.mu is held.
func (l *Log) prune() {
	now := l.opts.Now()
	var total int64
	for _, s := range l.segs {
		total += s.size
	}
	for len(l.segs) > 1 {
		s := l.segs[0]
		old := l.opts.MaxAge > 0 && s.last >= s.first && now.Sub(s.newest) > l.opts.MaxAge
		big := l.opts.MaxSize > 0 && total > l.opts.MaxSize
		empty := s.last < s.first
		if !old && !big && !empty {
			break
		}
		if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return
		}
		total -= s.size
		l.segs = l.segs[1:]
		keep := l.segs[0].first
		i := 0
		for i < len(l.tail) && l.tail[i].Seq < keep {
			i++
		}
		l.tail = l.tail[i:]
	}
	// An active segment all of whose entries are too old is closed, so
	// that the next prune drops it.
	a := l.segs[len(l.segs)-1]
	if l.opts.MaxAge > 0 && a.last >= a.first && now.Sub(a.newest) > l.opts.MaxAge && l.cur == nil && l.last == l.durable && l.saveState(l.last) == nil {
		if l.newSegment(l.last+1) == nil {
			l.prune()
		}
	}
}

// SetRetention changes the retention (as Options.MaxAge and MaxSize,
// zero meaning the default) and applies it.
func (l *Log) SetRetention(maxAge time.Duration, maxSize int64) {
	if maxAge == 0 {
		maxAge = DefaultMaxAge
	}
	if maxSize == 0 {
		maxSize = DefaultMaxSize
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opts.MaxAge, l.opts.MaxSize = maxAge, maxSize
	l.prune()
}

// Retention returns the retention in force (Options.MaxAge and MaxSize,
// defaults applied; negative: no limit).
func (l *Log) Retention() (maxAge time.Duration, maxSize int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.opts.MaxAge, l.opts.MaxSize
}
