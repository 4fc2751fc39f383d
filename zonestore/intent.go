package zonestore

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Intent operations.
const (
	// IntentCreate is recorded before a zone's file is written and named
	// is asked to add it.
	IntentCreate = "create"
	// IntentDelete is recorded before named is asked to delete a zone.
	IntentDelete = "delete"
)

// Intent is a write-ahead record of a zone operation: it is written to the
// index log, durably, before the operation touches the zone directory or
// named, and marked done (in the same append as the index change that
// completes it, or alone when the operation is undone). An intent still
// pending after a crash or an unknown outcome tells the reconciler what
// may be half done.
type Intent struct {
	// Op is IntentCreate or IntentDelete.
	Op string `json:"op"`
	// Name is the zone; it is the log line's name and not repeated.
	Name string `json:"-"`
	// Type is the zone's type (create).
	Type string `json:"type,omitempty"`
	// Fingerprint identifies the create request (see Entry.Fingerprint).
	Fingerprint string `json:"fp,omitempty"`
	// File is the zone's master file, whose presence named may depend on.
	File string `json:"file,omitempty"`
	// KeyDir is the directory named keeps the zone's DNSSEC keys in, as
	// named reported it before a delete ("" when not known).
	KeyDir string `json:"key_dir,omitempty"`
	// Time is when the intent was recorded.
	Time time.Time `json:"time"`
	// NotAfter is the time after which named can no longer execute a
	// control command sent for this intent (the command's expiry): from
	// then on, what named reports is final.
	NotAfter time.Time `json:"not_after,omitzero"`
}

// Begin records an intent durably (one append and fsync of the index log).
// It fails when the zone already has a pending intent.
func (s *Store) Begin(in Intent) error {
	if err := checkZone(in.Name); err != nil {
		return fmt.Errorf("recording intent: %w", err)
	}
	if in.Op != IntentCreate && in.Op != IntentDelete {
		return fmt.Errorf("recording intent: unknown operation %q", in.Op)
	}
	if in.Time.IsZero() {
		in.Time = time.Now()
	}
	in.Time = in.Time.UTC()
	in.NotAfter = in.NotAfter.UTC()
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.refresh(); err != nil {
		return err
	}
	if p, ok := x.pending[in.Name]; ok {
		return fmt.Errorf("recording intent to %s zone %s: an intent to %s it is pending", in.Op, in.Name, p.Op)
	}
	rec := in
	return x.write([]logRecord{{Op: "intent", Name: in.Name, Intent: &rec}})
}

// Complete marks the zone's intent done together with its index change, in
// one append: put, when not nil, adds or replaces the zone's entry; del
// removes it; with neither, the operation was undone or never happened.
func (s *Store) Complete(zone string, put *Entry, del bool) error {
	return s.complete(zone, put, del, false)
}

// complete is Complete, or with lazy, CompleteCreate.
func (s *Store) complete(zone string, put *Entry, del, lazy bool) error {
	if err := checkZone(zone); err != nil {
		return fmt.Errorf("completing intent: %w", err)
	}
	var recs []logRecord
	switch {
	case put != nil:
		e := *put
		if e.Created.IsZero() {
			e.Created = time.Now()
		}
		if msg := zonemodel.CheckIdentifier(e.Type); msg != "" {
			return fmt.Errorf("indexing zone %s: type %s", zone, msg)
		}
		recs = append(recs, logRecord{Op: "put", Name: zone, Type: e.Type, Created: e.Created.UTC(), FP: e.Fingerprint})
	case del:
		recs = append(recs, logRecord{Op: "del", Name: zone})
	}
	recs = append(recs, logRecord{Op: "done", Name: zone})
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.writeAs(recs, lazy)
}

// CompleteCreate is Complete(zone, put, false) for a create that named
// executed, without waiting for an fsync of its own: the append is
// durable with the log's next fsync (any writer's: the next intent, put
// or delete). A crash that loses it (a power loss; a killed process
// loses nothing it wrote) leaves the create's intent pending, durable
// since before addzone, with the type and fingerprint put has; it is
// settled, like any pending create, from named, which serves the zone
// with its file: completed, as put would have (Created is then the
// intent's time). So the fsync it spares protected nothing the intent
// does not.
func (s *Store) CompleteCreate(zone string, put *Entry) error {
	return s.complete(zone, put, false, true)
}

// PendingIntent returns the zone's pending intent, if any.
func (s *Store) PendingIntent(zone string) (Intent, bool, error) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.refresh(); err != nil {
		return Intent{}, false, err
	}
	in, ok := x.pending[zone]
	return in, ok, nil
}

// PendingIntents returns every pending intent, by zone name.
func (s *Store) PendingIntents() ([]Intent, error) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.refresh(); err != nil {
		return nil, err
	}
	out := make([]Intent, 0, len(x.pending))
	for _, name := range slices.Sorted(maps.Keys(x.pending)) {
		out = append(out, x.pending[name])
	}
	return out, nil
}

// RepairIndex discards a torn last line of the index log (a line without
// its newline, left by a writer that crashed or hit a full disk) and
// returns how many bytes were discarded, including those discarded by
// earlier writes of this process since the last call. A torn line is never
// completed: it was never acknowledged.
func (s *Store) RepairIndex() (int64, error) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	x.waitFlush() // a flush holds the flock while it waits for x.mu
	if err := x.lock(); err != nil {
		return 0, err
	}
	defer x.unlock()
	size, err := x.refresh()
	if err != nil {
		return 0, err
	}
	if size > x.off {
		if err := x.f.Truncate(x.off); err != nil {
			return 0, fmt.Errorf("discarding a torn zone index line: %w", err)
		}
		if err := x.f.Sync(); err != nil {
			return 0, fmt.Errorf("discarding a torn zone index line: %w", err)
		}
		x.discarded += size - x.off
	}
	n := x.discarded
	x.discarded = 0
	return n, nil
}

// isNoSpace reports whether err is a full disk or quota.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
