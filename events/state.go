package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// state is a webhook's durable delivery state, kept in
// <dir>/<name>.json (written whole: temp file, fsync, rename).
type state struct {
	// URL is the webhook's URL when the state was written (a name
	// reused for another URL starts afresh).
	URL string `json:"url"`
	// Cursor is the last sequence number settled: every entry up to it
	// was delivered, is not selected, or is a dead letter (held in
	// Dead).
	Cursor uint64 `json:"cursor"`
	// Attempts, FirstFailure and LastError describe the failing
	// attempts at the head event (the one after Cursor, or the head of
	// Retry), so that the retry limit holds across restarts.
	Attempts     int       `json:"attempts,omitempty"`
	FirstFailure time.Time `json:"first_failure,omitzero"`
	LastError    string    `json:"last_error,omitempty"`
	// Dead are the zones whose events wait as dead letters: the first
	// that failed past the retry limit and every later one of the zone
	// up to Cursor.
	Dead []DeadLetter `json:"dead,omitempty"`
	// Retry are the dead zones put back by Retry, redelivered before
	// anything after Cursor: each zone's selected events after After,
	// up to Cursor.
	Retry []retryZone `json:"retry,omitempty"`
}

// DeadLetter is a zone whose events wait until Retry: the event that
// failed past the retry limit, and the later events of the zone held
// behind it to keep their order.
type DeadLetter struct {
	// Zone and View are the zone whose events are held.
	Zone string `json:"zone"`
	View string `json:"view,omitempty"`
	// ID is the history ID of the event that failed; Type its type.
	ID   string `json:"id"`
	Type string `json:"type"`
	// Attempts were made at it, the last failing with Error; Since is
	// when it became a dead letter.
	Attempts int       `json:"attempts"`
	Error    string    `json:"error"`
	Since    time.Time `json:"since"`
	// Held counts the later events of the zone held behind it.
	Held int `json:"held"`

	seq uint64
}

// retryZone is a dead zone put back in the queue.
type retryZone struct {
	Zone  string `json:"zone"`
	View  string `json:"view,omitempty"`
	After uint64 `json:"after"` // its events after this are redelivered
}

// zoneKey is the key of a zone and view.
func zoneKey(zone, view string) string {
	return strings.ToLower(strings.TrimSuffix(zone, ".")) + "/" + view
}

// stateFile is the durable state of one webhook, locked by its process.
type stateFile struct {
	path string
	lock *os.File
}

// errBusy means another process delivers the webhook.
var errBusy = errors.New("another process delivers this webhook")

// lockState takes the webhook's lock file (<dir>/<name>.lock) without
// waiting: errBusy when another holder has it, in this process (a
// configuration generation that is stopping) or another.
func lockState(dir, name string) (*stateFile, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, err
	}
	return &stateFile{path: filepath.Join(dir, name+".json"), lock: f}, nil
}

// load reads the state; ok is false when there is none.
func (s *stateFile) load() (st state, ok bool, err error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, false, fmt.Errorf("%s: %v", s.path, err)
	}
	for i := range st.Dead {
		n, ok := zonemodel.ParseChangeID(st.Dead[i].ID)
		if !ok {
			return st, false, fmt.Errorf("%s: dead letter id %q is not a history ID", s.path, st.Dead[i].ID)
		}
		st.Dead[i].seq = n
	}
	return st, true, nil
}

// save writes the state durably.
func (s *stateFile) save(st *state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	if _, err = f.Write(append(b, '\n')); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, s.path)
}

// unlock releases the lock.
func (s *stateFile) unlock() { s.lock.Close() }
