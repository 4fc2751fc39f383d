// Package history is the durable change history of the zones: one Entry
// per change (a zone created, deleted, modified, frozen, thawed, reloaded,
// adopted or imported; records changed, with the RRsets added and removed
// and the serials before and after), whether the API made it or it was
// made behind the API's back (Source "external").
//
// The history is an append-only log of JSON lines in segment files under
// <zone_dir>/.zoneapi/history/, one file per range of sequence numbers
// (named after the first, zero-padded). Every entry carries a global
// sequence number (Seq, its ID in decimal) that strictly increases and is
// never reused, across restarts and retention. Append returns once the
// entry is written to the file, so it survives a crash of the process
// (SIGKILL, a panic); the Log fsyncs it at once on a goroutine of its
// own, one fsync for all the writes made meanwhile, or, with
// Options.SyncEach, before Append returns (concurrent appends then share
// one fsync: group commit). A crash leaves at most a torn last line,
// which Open truncates.
//
// Retention (Options.MaxAge, Options.MaxSize) drops whole segments, oldest
// first; the active segment is never dropped, so the sequence survives.
// Reads (Read) scan segments from the one holding the first sequence
// asked for, with the newest entries served from memory; Changed wakes
// readers that wait for new entries (the event stream and the webhooks
// of package module).
//
// One process writes a zone directory's history: Open takes an flock of
// <zone_dir>/.zoneapi/history/lock (ErrLocked when another process holds
// it). Within a process, package internal/sharedhistory hands every
// caller (the configuration generations of a Caddy reload, the
// external-dns webhook) the same Log of a directory.
package history
