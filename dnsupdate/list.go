package dnsupdate

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ListOptions filters and pages a record listing
// (zonemodel.ListOptions).
type ListOptions = zonemodel.ListOptions

// List returns one page of the zone's RRsets from a snapshot, and the
// cursor of the next page ("" on the last page).
func (u *Updater) List(ctx context.Context, zone string, opt ListOptions) (*Snapshot, []RRset, string, error) {
	after := ""
	if opt.Cursor != "" {
		b, err := u.openCursor(zone, opt.Cursor)
		if err != nil || len(b) == 0 {
			return nil, nil, "", &zonemodel.ValidationError{Problems: []zonemodel.Problem{{Field: "cursor", Message: "is not a cursor this API returned for this zone"}}}
		}
		after = string(b)
	}
	snap, err := u.Snapshot(ctx, zone)
	if err != nil {
		return nil, nil, "", err
	}
	limit := max(opt.Limit, 1)
	var page []RRset
	next, last := "", "" // last: the sort key of page's last RRset
	for i, s := range snap.RRsets() {
		m := snap.meta[i]
		if after != "" && m.key <= after {
			continue
		}
		if opt.Name != "" && !strings.EqualFold(s.Name, opt.Name) {
			continue
		}
		if opt.Type != 0 && m.rrtype != opt.Type {
			continue
		}
		if opt.Keep != nil && !opt.Keep(s.Name, m.rrtype) {
			continue
		}
		if len(page) == limit {
			next = u.sealCursor(zone, last)
			break
		}
		page = append(page, s)
		last = m.key
	}
	return snap, page, next, nil
}

// Cursors are opaque: the position (an RRset's sort key) sealed with
// AES-256-GCM under a key derived from the TSIG update key's secret (so
// that instances sharing the configuration accept each other's cursors,
// and restarts keep them valid), or a random key of the process when
// there is none; the zone is authenticated with it, so a cursor of one
// zone is refused in another.
func (u *Updater) cursorAEAD() cipher.AEAD {
	u.cursorOnce.Do(func() {
		var key [32]byte
		if u.dns != nil && u.dns.key != nil && u.dns.key.Secret != "" {
			key = sha256.Sum256([]byte("zoneapi record list cursor\x00" + u.dns.key.Secret))
		} else {
			_, _ = rand.Read(key[:])
		}
		block, _ := aes.NewCipher(key[:])
		u.cursorGCM, _ = cipher.NewGCM(block)
	})
	return u.cursorGCM
}

// sealCursor returns the opaque cursor of the position after key.
func (u *Updater) sealCursor(zone, key string) string {
	g := u.cursorAEAD()
	nonce := make([]byte, g.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(g.Seal(nonce, nonce, []byte(key), []byte(strings.ToLower(zone))))
}

// openCursor returns the position of a cursor sealCursor made for zone.
func (u *Updater) openCursor(zone, cursor string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	g := u.cursorAEAD()
	if err != nil || len(b) < g.NonceSize() {
		return nil, errors.New("not a cursor")
	}
	return g.Open(nil, b[:g.NonceSize()], b[g.NonceSize():], []byte(strings.ToLower(zone)))
}
