// Package dnsupdate changes and reads the records of zones that named
// serves, over DNS: RFC 2136 UPDATE messages signed with TSIG, and AXFR
// reads. It is the DNS half of the zone_api handler; package zonemodel
// holds the zone content (record parsing and validation) it builds on, and
// the dependency goes that way only.
//
// One concept per file:
//
//   - client.go: Client, one named's DNS port: updates, queries, SOA reads;
//     pool.go its capped pool of TCP connections; transfer.go AXFR.
//   - updater.go: Updater, what the handler holds: record changes with the
//     rules named would apply silently turned into prerequisites or
//     checks; record.go the single-record changes (Add, Remove, Replace),
//     batch.go atomic batches, checks.go the CNAME and apex-NS rules
//     checked against a snapshot, list.go paged listings.
//   - writer.go: the per-zone writer (one UPDATE in flight per zone, group
//     commit of concurrent adds, every message pinned to the last SOA);
//     merge.go which queued writes one message takes; serial.go the serial
//     arithmetic (RFC 1982, serial-update-method).
//   - snapshot.go: zone snapshots read by AXFR, cached until the serial
//     changes, within a bound on bytes (least recently used dropped).
//   - errors.go: the errors a caller maps to answers (ServerError for
//     named's rcodes; ConflictError, PreconditionError, ErrRecordNotFound,
//     ErrNoUpdateKey are zonemodel's).
//
// Methods take domain types (zonemodel.Record, Removal, Replacement,
// Change) and plain options, never an HTTP request; the types' JSON names
// are those of the API's request bodies, which the handler decodes into
// them, so each shape is written once. The package knows nothing of HTTP,
// Caddy or rndc.
package dnsupdate
