package dnsupdate

import (
	"strings"

	"github.com/miekg/dns"
)

// take removes the next message's writes from the queue: the first write
// and, when it may be merged, the mergeable writes behind it, up to
// mergeBytes, an exclusive write only with writes of other RRsets. A write
// that may not be merged (a CNAME add, a batch pinned to its snapshot) is
// never overtaken. A mergeable write that shares an RRset with the message
// waits for the next one, and so does every later write of its RRsets:
// writes of one RRset are sent in the order they came, and writes of other
// RRsets, which were all in flight at once (a client sends its next change
// once its last is answered), go ahead of it. Called with zw.mu held.
func (zw *zoneWriter) take() []*write {
	if len(zw.queue) == 0 {
		return nil
	}
	first := zw.queue[0]
	batch := []*write{first}
	size := first.size
	var sets *messageSets
	var waiting []bool // by queue index: left for a later message
	for i, w := range zw.queue[1:] {
		if !first.merge || !w.merge || w.method != first.method || size+w.size > mergeBytes {
			if waiting != nil {
				for j := i + 1; j < len(zw.queue); j++ {
					waiting[j] = true
				}
			}
			break
		}
		if sets == nil {
			sets = newMessageSets(first)
		}
		if !sets.join(w) {
			if waiting == nil {
				waiting = make([]bool, len(zw.queue))
			}
			waiting[i+1] = true
			sets.hold(w)
			continue
		}
		batch = append(batch, w)
		size += w.size
	}
	if waiting == nil {
		rest := copy(zw.queue, zw.queue[len(batch):])
		clear(zw.queue[rest:])
		zw.queue = zw.queue[:rest]
		return batch
	}
	n := 0
	for i, w := range zw.queue {
		if waiting[i] {
			zw.queue[n] = w
			n++
		}
	}
	clear(zw.queue[n:])
	zw.queue = zw.queue[:n]
	return batch
}

// messageSets are the RRsets the writes of one message touch, for take.
type messageSets struct {
	touched   map[setKey]bool
	exclusive map[setKey]bool // touched by an exclusive write
	held      map[setKey]bool // touched by a write left for a later message
}

func newMessageSets(first *write) *messageSets {
	m := &messageSets{touched: map[setKey]bool{}, exclusive: map[setKey]bool{}, held: map[setKey]bool{}}
	m.add(first)
	return m
}

// hold keeps w's RRsets out of the message: w waits for a later one.
func (m *messageSets) hold(w *write) {
	for _, rr := range w.update {
		m.held[keyOf(rr)] = true
	}
}

func (m *messageSets) add(w *write) {
	for _, rr := range w.update {
		k := keyOf(rr)
		m.touched[k] = true
		if w.exclusive {
			m.exclusive[k] = true
		}
	}
}

// join adds w's RRsets unless it shares one with an exclusive write or
// with a write held back, or is exclusive and shares one with any write.
func (m *messageSets) join(w *write) bool {
	for _, rr := range w.update {
		if k := keyOf(rr); m.exclusive[k] || m.held[k] || w.exclusive && m.touched[k] {
			return false
		}
	}
	m.add(w)
	return true
}

// keyOf is the RRset a record of an update section belongs to.
func keyOf(rr dns.RR) setKey {
	h := rr.Header()
	return setKey{strings.ToLower(h.Name), h.Rrtype}
}
