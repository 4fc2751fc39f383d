package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The zone operations of the zone API (package rest), each answering
// what named said. *zoneservice.Service implements them. Their errors
// are the service's (*zonemodel.ServiceError): a control command's name
// its Command, and the one mapping of the zone API turns them into its
// answers (404 for a zone named does not know, 409 for the zone's state,
// 500 "Bad Gateway" for a command named refused, 503 when the zone's
// lock is busy, 504 when named did not answer). ZoneRetransferrer and
// ZoneNotifier are the PowerDNS API's too (part of Service, whose
// adapter wraps the same errors in a *CallError), which ignores what
// they return beyond the error; so is SettingsModifier, whose adapter
// keeps the update key's grant in an allow-transfer list it sets (the
// API reads zones by transfers signed with it).

// ZoneReloader reloads a zone from its file.
type ZoneReloader interface {
	// Reload runs `rndc reload` under the zone's lock and returns
	// named's answer; the changes the file brought are recorded in the
	// change history as external, then the reload. Errors: busy, not
	// found, control, outcome unknown (504: named may have reloaded).
	// Idempotent: reloading again loads the same file.
	Reload(ctx context.Context, zone string) (string, error)
}

// ZoneFreezer stops a zone's dynamic updates.
type ZoneFreezer interface {
	// Freeze runs `rndc freeze` (the journal is written into the file)
	// under the zone's lock and returns named's answer. Errors as
	// Reload's, and the zone's state (already frozen, not dynamic: 409).
	// Idempotent in effect: a second freeze is refused as already
	// frozen, the zone staying frozen.
	Freeze(ctx context.Context, zone string) (string, error)
}

// ZoneThawer enables a zone's dynamic updates again.
type ZoneThawer interface {
	// Thaw runs `rndc thaw` (which reloads the file) under the zone's
	// lock and waits (a bounded time) until named reports the zone no
	// longer frozen, so that a record change sent after it is taken.
	// Errors as Freeze's (not frozen: 409). Idempotent in effect, as
	// Freeze.
	Thaw(ctx context.Context, zone string) (string, error)
}

// ZoneRetransferrer refreshes a secondary zone.
type ZoneRetransferrer interface {
	// Retransfer runs `rndc retransfer` and returns named's answer.
	// Errors: named refuses it for a primary zone (the control kind,
	// wrong zone type: 409), not found, control, outcome unknown.
	// Idempotent.
	Retransfer(ctx context.Context, zone string) (string, error)
}

// ZoneNotifier sends a zone's NOTIFY messages.
type ZoneNotifier interface {
	// Notify runs `rndc notify` and then sends a NOTIFY (RFC 1996) itself,
	// with the SOA named serves, to every server it can name (the zone's
	// also-notify servers and the catalog's), and reports each answer
	// and the serial. Errors: those of showzone and notify, the control
	// kind without a command when the SOA cannot be read. Idempotent: a
	// NOTIFY changes nothing.
	Notify(ctx context.Context, zone string) (*zonemodel.Notified, error)
}

// SettingsModifier changes a zone's settings.
type SettingsModifier interface {
	// Modify changes the clauses ch names (checked first, as the
	// service's ValidateSettings checks them without I/O before a
	// request is authorised), keeping every other: showzone,
	// the change, one `rndc modzone` (named takes the whole statement or
	// none of it), showzone again, under the zone's lock. It returns
	// named's answer and the settings after (nil when they could not be
	// read back). Errors: the invalid kind (the change is invalid or does
	// not apply to the zone: 400), busy, and those of showzone and
	// modzone (a change named refuses changes nothing). Idempotent: the
	// clauses are set, not added to.
	Modify(ctx context.Context, zone string, ch *zonemodel.SettingsChange) (*zonemodel.Modified, error)
}
