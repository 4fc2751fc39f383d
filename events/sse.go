package events

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// DefaultHeartbeat is how often an idle stream sends a comment line, so
// that proxies keep it open and a dead client is noticed.
const DefaultHeartbeat = 15 * time.Second

// Stream serves the event stream (Server-Sent Events) to one client:
// the history's entries after After, then the live ones as they are
// recorded. Each event is `id: <ID>`, `event: <Type>` and `data: <the
// entry's JSON>`.
type Stream struct {
	// Source is the history.
	Source Source
	// After is the sequence number of the last event the client has
	// (its Last-Event-ID); the stream begins after it.
	After uint64
	// Filter selects the entries sent (the zone and type parameters).
	Filter zonemodel.ChangeFilter
	// Visible, if set, returns an entry as the client may see it, or
	// false to leave it out: the identity's scopes.
	Visible func(zonemodel.ChangeEntry) (zonemodel.ChangeEntry, bool)
	// Heartbeat is the interval of the keep-alive comments. Default
	// DefaultHeartbeat.
	Heartbeat time.Duration
	// Until, if set, ends the stream cleanly at that time, between two
	// events: before the server's write timeout would cut it.
	Until time.Time
	// Stop, when closed, ends the stream cleanly (the server shuts
	// down or the handler's configuration is unloaded).
	Stop <-chan struct{}
	// RetryAfter is the reconnection delay the stream advises (the SSE
	// retry field). Default 1s.
	RetryAfter time.Duration
}

// AfterFromRequest returns the sequence number a client resumes after:
// its Last-Event-ID header, else its lastEventId query parameter, else
// the history's last (the stream begins with the next change). ok is
// false when the value is not an event ID.
func AfterFromRequest(r *http.Request, src Source) (after uint64, ok bool) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("lastEventId")
	}
	if v == "" {
		return src.Last(), true
	}
	return zonemodel.ParseChangeID(v)
}

// Serve writes the stream until the client goes, Stop is closed or Until
// passes. It returns the error that ended it, nil for a clean end.
func (s *Stream) Serve(w http.ResponseWriter, r *http.Request) error {
	rc := http.NewResponseController(w)
	// The stream lives long: no write deadline of the server's applies
	// to it (a configured write_timeout still does, which Until
	// anticipates).
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // for a buffering proxy in front
	w.WriteHeader(http.StatusOK)
	retry := s.RetryAfter
	if retry <= 0 {
		retry = time.Second
	}
	if _, err := fmt.Fprintf(w, "retry: %d\n\n", retry.Milliseconds()); err != nil {
		return err
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	metrics.streamClients.Inc()
	defer metrics.streamClients.Dec()

	beat := s.Heartbeat
	if beat <= 0 {
		beat = DefaultHeartbeat
	}
	ticker := time.NewTicker(beat)
	defer ticker.Stop()
	var end <-chan time.Time
	if !s.Until.IsZero() {
		t := time.NewTimer(time.Until(s.Until))
		defer t.Stop()
		end = t.C
	}
	after := s.After
	if last := s.Source.Last(); after > last {
		// The client saw more than this history holds (it was reset):
		// go on from its end.
		after = last
	}
	if first := s.Source.First(); after+1 < first {
		if _, err := fmt.Fprintf(w, ": events %d to %d were dropped by the history's retention\n\n", after+1, first-1); err != nil {
			return err
		}
	}
	var buf []byte
	for {
		changed := s.Source.Changed()
		last := s.Source.Last()
		batch, err := s.Source.Read(after, s.Filter, batchSize)
		if err != nil {
			return err
		}
		buf = buf[:0]
		for _, e := range batch {
			after = e.Seq
			if s.Visible != nil {
				var ok bool
				if e, ok = s.Visible(e); !ok {
					continue
				}
			}
			data, err := e.JSON()
			if err != nil {
				return err
			}
			buf = append(buf, "id: "...)
			buf = append(buf, e.ID...)
			buf = append(buf, "\nevent: "...)
			buf = append(buf, e.Type...)
			buf = append(buf, "\ndata: "...)
			buf = append(buf, data...)
			buf = append(buf, "\n\n"...)
			metrics.streamed.Inc()
		}
		if len(batch) < batchSize && last > after {
			after = last
		}
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			if err := rc.Flush(); err != nil {
				return err
			}
		}
		if len(batch) == batchSize {
			continue
		}
		select {
		case <-changed:
		case <-ticker.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return err
			}
			if err := rc.Flush(); err != nil {
				return err
			}
		case <-r.Context().Done():
			return ignoreCanceled(r.Context().Err())
		case <-s.Stop:
			return nil
		case <-end:
			return nil
		}
	}
}

// ignoreCanceled maps the client's going away to a clean end.
func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// FormatID is the SSE id (and history ID) of a sequence number.
func FormatID(seq uint64) string { return strconv.FormatUint(seq, 10) }
