// Package zonestore holds the zone directory of the zone_api handler; all
// reads and writes of files in it go through this package:
//
//   - store.go: atomic file writes and per-zone locks that hold across
//     processes, removal of a zone's files;
//   - files.go: the zone files present, files moved aside, DNSSEC key
//     files removed;
//   - index.go: the index of managed zones and the replay of its log;
//     indexlog.go the log's writes (group commit) and its compaction;
//     intent.go the write-ahead intents of the lifecycle.
//   - sidefile.go: the side files front ends keep beside a zone
//     (<zone>.pdns.json), replaced atomically under a lock of their own
//     and removed with the zone's files.
//   - filenames.go: a zone's name in file names (FileBase: '/' in a
//     label as %2F, as named writes key files; the root zone %2E), so
//     that no name leaves the directory or meets another zone's files;
//   - keptfile.go: the kept files (<dir>/.zoneapi/<name>.kept) another
//     part keeps between runs (the zone inventory), replaced atomically.
//
// The zone content itself (names, records, validation, rendering) is
// package zonemodel, which has no I/O.
//
// The package knows nothing of HTTP, Caddy or rndc.
package zonestore
