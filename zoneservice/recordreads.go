package zoneservice

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The record reads in zonemodel terms: each reads the zone by AXFR (from
// a serial-keyed cache: snapshot, listRecords) and answers the serial the
// records are of. Errors: no update key (zonemodel.ErrNoUpdateKey), the
// zone unknown (ErrNotFound), the transfer refused or failed
// (ErrTransferRefused, ErrServerFailure, …; see records.go). Read-only, so
// idempotent.

// RRsets reads the whole zone: its serial and its RRsets in canonical
// order, from one zone transfer.
func (r *Records) RRsets(ctx context.Context, zone string) (serial uint32, sets []zonemodel.RRset, err error) {
	snap, err := r.snapshot(ctx, zone)
	if err != nil {
		return 0, nil, err
	}
	return snap.Serial(), snap.RRsets(), nil
}

// RecordPage reads one page of the zone's RRsets in canonical order,
// opt's filters applied before the page is cut: the serial of the
// snapshot the page comes from, the page's RRsets and the next page's
// cursor ("" on the last).
func (r *Records) RecordPage(ctx context.Context, zone string, opt zonemodel.ListOptions) (serial uint32, sets []zonemodel.RRset, next string, err error) {
	snap, sets, next, err := r.listRecords(ctx, zone, opt)
	if err != nil {
		return 0, nil, "", err
	}
	return snap.Serial(), sets, next, nil
}

// ZoneFile reads the zone: its serial and its master-file text, rendered
// when text is called (a conditional read that answers 304 renders
// nothing).
func (r *Records) ZoneFile(ctx context.Context, zone string) (serial uint32, text func() []byte, err error) {
	snap, err := r.snapshot(ctx, zone)
	if err != nil {
		return 0, nil, err
	}
	return snap.Serial(), snap.MasterFile, nil
}

// ScanSnapshot reads the whole zone for a read of every zone in turn (the
// PowerDNS search): dnsupdate's Scan, which answers from the snapshot
// cache and adds nothing to it. Errors as Snapshot's.
func (r *Records) ScanSnapshot(ctx context.Context, zone string) (*dnsupdate.Snapshot, error) {
	if r.updater == nil {
		return nil, dnsupdate.ErrNoUpdateKey
	}
	snap, err := r.updater.Scan(ctx, zone)
	if err != nil {
		return nil, r.recordErr(ctx, zone, "read", err)
	}
	return snap, nil
}
