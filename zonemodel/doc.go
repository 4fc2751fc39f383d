// Package zonemodel is the zone model of the zone_api handler: the
// bindcar-compatible create request, its validation and the normalised
// zone (names, addresses, SOA, records), records as the record endpoints
// give them, and master-file text. It is pure: no files, no network, no
// locks; package zonestore keeps the files, and every package that names
// zones or parses records builds on this one.
//
//   - zone.go: the create request, its validation and the normalised zone;
//   - names.go: zone, owner and mailbox names, rndc identifiers;
//   - recordspec.go: records as the record endpoints give them, parsed
//     and validated against a zone (names, types, rdata); rdata.go their
//     master-file text; change.go the other record changes (a removal, a
//     replacement, a batch's changes), which the zone service takes;
//     precondition.go the conditions of a conditional apply (RFC 2136
//     prerequisites) and records read with the root as origin;
//   - render.go: master files rendered with miekg/dns, and the
//     configuration block handed to `rndc addzone`;
//   - errors.go: ValidationError, every problem of a request at once;
//     serviceerror.go the zone service's typed errors as front ends
//     inspect them (the kinds, ServiceError, ConflictError,
//     PreconditionError, named's control refusals);
//   - the values of the front ends' contract (package frontend): rrset.go
//     RRset, dnskey.go DNSKey, sidefile.go SideFileStamp, actor.go who
//     asked for an operation.
//   - the values the zone API and the events read through the contract,
//     which the service's packages alias: catalog.go (the catalog's
//     members and drift), changelog.go (the change history's entries and
//     filter), controlanswer.go (what a front end reads of named's
//     answers: unanswered commands, views, TSIG errors), fingerprint.go
//     (a create request's fingerprint), idempotency.go (a keyed request),
//     imports.go (an import's source and results), lifecycle.go (create,
//     delete, adopt), listing.go (the zone lists), listtype.go, records.go
//     (a change's result, a listing's options), reconcile.go,
//     serverstatus.go, settings.go (a zone's settings and their change,
//     NOTIFY results), zonestate.go (a zone's status, index entry and
//     capabilities).
//
// The package knows nothing of HTTP, Caddy, rndc or the disk.
//
// # Validation decisions
//
// Where bindcar is silent or buggy, this package decides as follows:
//
//   - Zone names are lower-cased; one trailing dot is accepted and stripped.
//     Labels are 1–63 characters of [A-Za-z0-9_-] and must not start or end
//     with '-'. The result is safe to use as a file name.
//   - zoneType accepts "primary" and "secondary", and BIND's historical
//     aliases "master" and "slave", case-insensitively; the zone's Type is
//     always "primary" or "secondary".
//   - Names in zone content follow master-file rules: "@" is the apex, a name
//     ending in '.' is absolute, any other name is relative to the zone (so
//     "ns1.example.com" in zone example.com means ns1.example.com.example.com.).
//   - soa.adminEmail accepts the DNS mailbox form ("hostmaster.example.com."
//     or a relative "hostmaster") and the e-mail form ("hostmaster@example.com",
//     whose domain is always absolute); dots in the local part of the e-mail
//     form are escaped ("john.doe@x.org" becomes "john\.doe.x.org.").
//   - Glue (nameServerIps) must name hosts inside the zone; an IPv4 value
//     yields an A record, an IPv6 value an AAAA record. Every NS target inside
//     the zone must have an address (glue or an A/AAAA record), as BIND
//     refuses to load the zone otherwise.
//   - A TXT value that does not start with '"' is one string of text, taken
//     literally, split into 255-byte strings when longer. A value starting with
//     '"' is parsed as master-file TXT data (several quoted strings).
//   - In any value parsed as master-file data, a backslash followed by a digit
//     must start a \DDD escape of three digits, 000 to 255 (BadEscape): named's
//     parser refuses "\1" and "\256", which miekg/dns would read as "1" and
//     \000. Zone file text (imports) is held to the same rule outside
//     comments, the error naming the entry's first line as named does.
//   - priority is accepted for MX and SRV only and is put before the value.
//   - For secondary zones zoneConfig may be omitted; its ttl, soa, nameServers,
//     nameServerIps and records are ignored (bindcar's clients send them), and
//     updateKeyName is refused because BIND allows allow-update only in
//     primary zones. For primary zones primaries is ignored, as bindcar does.
//   - The default SOA serial is YYYYMMDDnn (UTC), where nn is the number of
//     minutes since midnight scaled to 0–99 (minutes*100/1440). A zone deleted
//     and created again later the same day therefore usually gets a higher
//     serial, where bindcar always used nn = 01.
package zonemodel
