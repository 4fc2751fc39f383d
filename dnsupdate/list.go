package dnsupdate

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ListOptions filters and pages a record listing.
type ListOptions struct {
	// Name keeps only RRsets owned by this absolute name, when not empty.
	Name string
	// Type keeps only RRsets of this type, when not 0.
	Type uint16
	// Limit is the page size (at least 1).
	Limit int
	// Cursor is the NextCursor of the previous page, or "".
	Cursor string
}

// List returns one page of the zone's RRsets from a snapshot, and the
// cursor of the next page ("" on the last page).
func (u *Updater) List(ctx context.Context, zone string, opt ListOptions) (*Snapshot, []RRset, string, error) {
	after := ""
	if opt.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(opt.Cursor)
		if err != nil || len(b) == 0 {
			return nil, nil, "", &zonemodel.ValidationError{Problems: []zonemodel.Problem{{Field: "cursor", Message: "is not a cursor this API returned"}}}
		}
		after = string(b)
	}
	snap, err := u.Snapshot(ctx, zone)
	if err != nil {
		return nil, nil, "", err
	}
	limit := max(opt.Limit, 1)
	var page []RRset
	next := ""
	for _, s := range snap.RRsets() {
		if after != "" && s.key <= after {
			continue
		}
		if opt.Name != "" && !strings.EqualFold(s.Name, opt.Name) {
			continue
		}
		if opt.Type != 0 && s.rrtype != opt.Type {
			continue
		}
		if len(page) == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1].key))
			break
		}
		page = append(page, s)
	}
	return snap, page, next, nil
}
