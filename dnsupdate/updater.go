package dnsupdate

import (
	"context"
	"crypto/cipher"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// maxUpdateSize is the largest UPDATE message sent: the TCP message limit
// less room for the TSIG record.
const maxUpdateSize = dns.MaxMsgSize - 512

// retries bounds how often a change whose prerequisites failed because
// the zone changed concurrently is prepared again.
const retries = 3

// Updater changes the records of zones served by named with RFC 2136
// UPDATE messages signed with TSIG, and reads zones by AXFR, caching each
// zone's content until its serial changes. It is safe for concurrent use.
//
// Every rule named would apply silently (CNAME beside other data, a second
// CNAME, deleting the apex NS RRset) is either a prerequisite of the UPDATE
// message, so named enforces it atomically, or checked against a snapshot
// of the zone whose serial is itself a prerequisite.
//
// Writes to a zone go through its writer (see writer.go): one UPDATE in
// flight per zone, concurrent single adds merged into one message, every
// message pinned to the last SOA seen and setting the next serial.
type Updater struct {
	dns   *Client
	cache snapshotCache

	wmu     sync.Mutex
	writers map[string]*zoneWriter // zone -> its writer and last SOA
	// idleAfter is how long a writer stays idle before it is freed
	// (0: writerIdleAfter); sweep, under wmu, is the timer that frees
	// them, set while there are writers (idle.go).
	idleAfter time.Duration
	sweep     *time.Timer
	sweeping  bool // sweep is set to run
	closed    bool
	freed     atomic.Int64 // writers freed idle

	transfers atomic.Int64
	// known counts the records the zone writers know (known.go);
	// modelled and read count the changes worked out by the model and
	// read back by IXFR.
	known         knownCount
	modelledDiffs atomic.Int64
	readDiffs     atomic.Int64

	cursorOnce sync.Once
	cursorGCM  cipher.AEAD // see cursorAEAD

	beforeSend func(*dns.Msg) // tests only: sees each UPDATE before it is sent
	// beforeEnqueue, tests only, runs between a write's lookup of its
	// zone's writer and its enqueue (the window a free may fall in).
	beforeEnqueue func()
	// checkModel, tests only, sees each change the model worked out.
	checkModel func(zone string, s serials, a Applied, update []dns.RR)
}

// NewUpdater returns an Updater using the client.
func NewUpdater(c *Client) *Updater {
	return &Updater{dns: c, writers: make(map[string]*zoneWriter)}
}

// Client returns the DNS client.
func (u *Updater) Client() *Client { return u.dns }

// Close closes the client's idle connections and keeps none from now on
// (see Client.Close). Changes still running finish.
func (u *Updater) Close() {
	u.wmu.Lock()
	u.closed = true
	if u.sweep != nil {
		u.sweep.Stop()
	}
	u.wmu.Unlock()
	u.dns.Close()
}

// Transfers returns how many zone transfers the updater made.
func (u *Updater) Transfers() int64 { return u.transfers.Load() }

// Forget drops what the updater remembers of a zone (after it is deleted
// or re-created).
func (u *Updater) Forget(zone string) {
	u.cache.forget(zone)
	u.wmu.Lock()
	defer u.wmu.Unlock()
	zw, ok := u.writers[zone]
	if !ok {
		return
	}
	zw.mu.Lock()
	defer zw.mu.Unlock()
	if !zw.busy {
		zw.free()
		delete(u.writers, zone)
		return
	}
	// A write is in flight: its leader keeps this writer, which forgets.
	zw.soa, zw.unpinnedUntil, zw.noSOAUntil = nil, time.Time{}, time.Time{}
	zw.index, zw.size, zw.noIndexUntil = nil, 0, time.Time{}
	zw.known.drop(zw.total)
	zw.known, zw.noModelUntil = nil, time.Time{}
}

// WriteOptions tunes a change.
type WriteOptions struct {
	// IfSerial, when set, makes the change conditional on the zone's SOA
	// serial (If-Match): a *PreconditionError when it differs, checked
	// atomically by an UPDATE prerequisite on the SOA record.
	IfSerial *uint32
	// SerialMethod is how the change sets the zone's next serial, as
	// named's serial-update-method would (default increment).
	SerialMethod SerialMethod
	// Applied, if set, is called once named accepted the change, before
	// the change's method returns, by the goroutine that sent it: for a
	// zone's changes, in the order named applied them. It must not block
	// on the zone's writes (it runs inside the zone's writer); the
	// history enqueues its entry there.
	Applied func(Applied)
	// Hold, if set, is called before the Applied callbacks of the
	// message that carried the change, and the function it returns after
	// the last of them: writes merged into one message are then recorded
	// together (the history writes none of them until all are enqueued,
	// so that a crash cannot keep some of one message's entries and lose
	// the others, which would hide the loss behind the message's serial).
	Hold func() (release func())
	// SOA, if set, is the SOA record a batch sets (Batch only: PowerDNS's
	// PATCH of the SOA RRset): its MNAME, RNAME, timers and TTL as given,
	// and its serial when that is above the zone's (RFC 1982); otherwise
	// the serial SerialMethod gives, since named ignores an SOA whose
	// serial is not higher. It is set in the same UPDATE as the batch's
	// changes, pinned to the SOA they were checked at, all or nothing.
	SOA *dns.SOA
}

// ChangeResult is what a change did (zonemodel.ChangeResult).
type ChangeResult = zonemodel.ChangeResult

// defaultTTL is the zone's default TTL: its SOA record's TTL (the $TTL of
// zones created through the API), read once and refreshed whenever the
// SOA is read.
func (u *Updater) defaultTTL(ctx context.Context, zone string) (uint32, error) {
	if soa := u.cachedSOA(zone); soa != nil {
		return soa.Hdr.Ttl, nil
	}
	// One read per zone: a burst of first writes waits for it.
	zw := u.writer(zone)
	zw.first.Lock()
	defer zw.first.Unlock()
	if soa := u.cachedSOA(zone); soa != nil {
		return soa.Hdr.Ttl, nil
	}
	soa, err := u.readSOA(ctx, zone)
	if err != nil {
		return 0, err
	}
	return soa.Hdr.Ttl, nil
}

func newUpdate(zone string) *dns.Msg {
	m := new(dns.Msg)
	m.SetUpdate(zonemodel.Origin(zone))
	m.Compress = true
	return m
}

// send signs and sends an UPDATE message.
func (u *Updater) send(ctx context.Context, zone string, m *dns.Msg) error {
	if !u.dns.CanUpdate() {
		return ErrNoUpdateKey
	}
	if n := m.Len(); n > maxUpdateSize {
		return &zonemodel.ValidationError{Problems: []zonemodel.Problem{{Field: "changes", Message: fmt.Sprintf(
			"the changes make an UPDATE message of %d bytes, over the %d-byte limit of one DNS message: split them into several batches", n, maxUpdateSize)}}}
	}
	return u.dns.Update(ctx, zone, m)
}

// finish reads the serial after a change.
func (u *Updater) finish(ctx context.Context, zone string, res *ChangeResult) *ChangeResult {
	if soa, err := u.readSOA(ctx, zone); err == nil {
		res.Serial, res.HasSerial = soa.Serial, true
	}
	return res
}
