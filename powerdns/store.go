package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/frontend"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// What PowerDNS keeps of a zone and BIND has no place for (comments,
// disabled records, the zone's kind as given, account, catalog, SOA-EDIT
// settings, api_rectify, NSEC3 settings, masters of a primary zone,
// metadata of kinds that map onto nothing in BIND) is kept in the zone's
// side file, <zone>.pdns.json beside the zone's file in the zone
// directory (zonestore's side files):
//
//   - written whole and atomically (temporary file, fsync, rename,
//     directory fsync) under the side file's lock, which holds across
//     processes sharing the directory;
//   - written when a create, import, PUT, PATCH or metadata change
//     leaves something to keep, and removed with the zone's files when
//     the zone is deleted (through any front end; the delete's intent
//     runs that again after a crash);
//   - stamped with the zone's creation time (its index entry's): a side
//     file of an earlier zone of the name is not read as this one's.
//
// Disabled records are kept here and not sent to named, which serves
// every record it has: disabling a record removes it from named (an
// UPDATE, recorded in the history like any), enabling it adds it back.
// A record named serves is shown enabled whatever the side file says, so
// that a crash between the side file's write and the UPDATE shows the
// zone as before or after the change, never a record both ways.

// zoneData is a zone's side file.
type zoneData struct {
	// Created is the zone's creation time when the file was written
	// (ZoneInfo.Created).
	Created     time.Time           `json:"created"`
	Kind        string              `json:"kind,omitempty"`
	Account     string              `json:"account,omitempty"`
	Catalog     *string             `json:"catalog,omitempty"`
	SOAEdit     string              `json:"soa_edit,omitempty"`
	SOAEditAPI  *string             `json:"soa_edit_api,omitempty"`
	APIRectify  *bool               `json:"api_rectify,omitempty"`
	NSEC3Param  string              `json:"nsec3param,omitempty"`
	NSEC3Narrow bool                `json:"nsec3narrow,omitempty"`
	Masters     []string            `json:"masters,omitempty"`
	Metadata    map[string][]string `json:"metadata,omitempty"`
	// RRsets are the comments and disabled records, by rrsetKey.
	RRsets map[string]*rrsetData `json:"rrsets,omitempty"`
}

// rrsetData is what the side file keeps of one RRset.
type rrsetData struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// TTL is the RRset's TTL as last given, shown for an RRset named does
	// not serve (every record disabled).
	TTL      uint32    `json:"ttl,omitempty"`
	Comments []Comment `json:"comments,omitempty"`
	Disabled []string  `json:"disabled,omitempty"`
}

func rrsetKey(name, typ string) string {
	return strings.ToLower(FQDN(name)) + " " + strings.ToUpper(typ)
}

// empty reports whether d keeps nothing (no side file is needed).
func (d *zoneData) empty() bool {
	return d.Kind == "" && d.Account == "" && d.Catalog == nil && d.SOAEdit == "" && d.SOAEditAPI == nil && d.APIRectify == nil &&
		d.NSEC3Param == "" && !d.NSEC3Narrow && len(d.Masters) == 0 && len(d.Metadata) == 0 && len(d.RRsets) == 0
}

// rrset returns the RRset's data, made when absent.
func (d *zoneData) rrset(name, typ string) *rrsetData {
	k := rrsetKey(name, typ)
	if d.RRsets == nil {
		d.RRsets = map[string]*rrsetData{}
	}
	rs := d.RRsets[k]
	if rs == nil {
		rs = &rrsetData{Name: strings.ToLower(FQDN(name)), Type: strings.ToUpper(typ)}
		d.RRsets[k] = rs
	}
	return rs
}

// prune drops RRsets that keep nothing.
func (d *zoneData) prune() {
	for k, rs := range d.RRsets {
		if len(rs.Comments) == 0 && len(rs.Disabled) == 0 {
			delete(d.RRsets, k)
		}
	}
}

// clone is a deep copy of d.
func (d *zoneData) clone() *zoneData {
	b, _ := json.Marshal(d)
	var c zoneData
	_ = json.Unmarshal(b, &c)
	return &c
}

// sideFiles is the service's side files, nil when it has none (then
// nothing beyond BIND's is kept).
func (a *API) sideFiles() frontend.SideFiles {
	sf, err := a.Service.SideFiles()
	if err != nil || sf == nil {
		return nil
	}
	return sf
}

// loadData reads the zone's side file: an empty zoneData when there is
// none, or when it was written for an earlier zone of the name.
func (a *API) loadData(z *ZoneInfo) (*zoneData, error) {
	sf := a.sideFiles()
	if sf == nil {
		return &zoneData{}, nil
	}
	return readData(sf, z)
}

func readData(sf frontend.SideFiles, z *ZoneInfo) (*zoneData, error) {
	b, ok, err := sf.ReadSideFile(z.Name, zonemodel.SideKindPowerDNS)
	if err != nil {
		return nil, err
	}
	d := &zoneData{}
	if !ok {
		return d, nil
	}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("reading the PowerDNS data of zone %s: %w", z.Name, err)
	}
	if !d.Created.Equal(z.Created) {
		return &zoneData{}, nil // an earlier zone's
	}
	return d, nil
}

// saveData writes (or, when d keeps nothing, removes) the zone's side
// file.
func saveData(sf frontend.SideFiles, z *ZoneInfo, d *zoneData) error {
	b, err := encodeData(sf, z, d)
	if err != nil {
		return err
	}
	return writeData(sf, z, b)
}

// encodeData is the side file's content for d: nil when d keeps
// nothing, an InputError when it is larger than sf keeps a side file
// (sideLimit; a larger one could not be read back: the zone's PowerDNS
// reads and changes would fail until it shrank).
func encodeData(sf frontend.SideFiles, z *ZoneInfo, d *zoneData) ([]byte, error) {
	d.prune()
	if d.empty() {
		return nil, nil
	}
	d.Created = z.Created
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	if len(b) > sideLimit(sf) {
		return nil, sideTooLarge(z, len(b))
	}
	return b, nil
}

// sideLimit is the largest side file sf keeps: its SideFileLimit when it
// tells (zonestore's Store does), else zonemodel.MaxSideFile.
func sideLimit(sf frontend.SideFiles) int {
	if l, ok := sf.(interface{ SideFileLimit() int }); ok {
		return l.SideFileLimit()
	}
	return zonemodel.MaxSideFile
}

// writeData writes the side file's content b (encodeData), or removes
// the file when b is nil.
func writeData(sf frontend.SideFiles, z *ZoneInfo, b []byte) error {
	if b == nil {
		return sf.RemoveSideFile(z.Name, zonemodel.SideKindPowerDNS)
	}
	err := sf.ReplaceSideFile(z.Name, zonemodel.SideKindPowerDNS, b)
	if errors.Is(err, zonemodel.ErrSideFileTooLarge) {
		return sideTooLarge(z, len(b))
	}
	return err
}

func sideTooLarge(z *ZoneInfo, n int) error {
	return inputErr("zone %s: what the PowerDNS API keeps beside the zone (comments, metadata, disabled records) would take %d bytes, over the limit a side file has; nothing was changed", FQDN(z.Name), n)
}

// updateData changes the zone's side file under its lock: fn changes
// the data read, and what it leaves is written. Without side files it
// does nothing.
func (a *API) updateData(ctx context.Context, z *ZoneInfo, fn func(d *zoneData) error) error {
	sf := a.sideFiles()
	if sf == nil {
		return nil
	}
	unlock, err := sf.LockSideFile(ctx, z.Name, zonemodel.SideKindPowerDNS)
	if err != nil {
		return err
	}
	defer unlock()
	d, err := readData(sf, z)
	if err != nil {
		return err
	}
	if err := fn(d); err != nil {
		return err
	}
	return saveData(sf, z, d)
}

// kindName is a kind as PowerDNS shows it (Primary is Master, Secondary
// Slave), "" for one it does not know.
func kindName(kind string) string {
	switch strings.ToLower(kind) {
	case "native":
		return KindNative
	case "master", "primary":
		return KindMaster
	case "slave", "secondary":
		return KindSlave
	case "producer":
		return KindProducer
	case "consumer":
		return KindConsumer
	}
	return ""
}

// kindFits reports whether a PowerDNS kind is one BIND's zone type can
// be shown as: Native, Master and Producer zones are primary zones,
// Slave and Consumer zones secondary ones.
func kindFits(kind, bindType string) bool {
	switch kindName(kind) {
	case KindNative, KindMaster, KindProducer:
		return bindType != BINDSecondary
	case KindSlave, KindConsumer:
		return bindType == BINDSecondary
	}
	return false
}

// applyData shows what the side file keeps in a zone object.
func applyData(obj *Zone, z *ZoneInfo, d *zoneData) {
	if d.Kind != "" && kindFits(d.Kind, z.Type) {
		obj.Kind = d.Kind
	}
	obj.Account, obj.SOAEdit = d.Account, d.SOAEdit
	switch {
	case d.Catalog != nil:
		obj.Catalog = *d.Catalog
	case z.Catalog != "":
		// zone_api's catalog, which every zone it makes joins: as
		// PowerDNS's default-catalog-zone.
		obj.Catalog = FQDN(z.Catalog)
	}
	if z.Catalog != "" && strings.EqualFold(FQDN(z.Name), FQDN(z.Catalog)) {
		// zone_api's catalog zone itself: a Producer zone in PowerDNS's
		// words (its members are the zones the API makes), not a member
		// of itself.
		obj.Kind, obj.Catalog = KindProducer, ""
	}
	if d.SOAEditAPI != nil {
		obj.SOAEditAPI = *d.SOAEditAPI
	}
	if d.APIRectify != nil {
		obj.APIRectify = *d.APIRectify
	}
	obj.NSEC3Param, obj.NSEC3Narrow = d.NSEC3Param, d.NSEC3Narrow
	if z.Type != BINDSecondary && len(d.Masters) > 0 {
		obj.Masters = append([]string{}, d.Masters...)
	}
}

// dataFromRequest sets the zone attributes a create or PUT gives.
func dataFromRequest(d *zoneData, req *ZoneRequest, bindType string) {
	if req.Kind != "" {
		d.Kind = kindName(req.Kind)
		if d.Kind == KindMaster && bindType != BINDSecondary || d.Kind == KindSlave && bindType == BINDSecondary {
			d.Kind = "" // what the zone is shown as without a side file
		}
	}
	if req.Account != nil {
		d.Account = *req.Account
	}
	if req.Catalog != nil {
		v := *req.Catalog
		d.Catalog = &v
	}
	if req.SOAEdit != nil {
		d.SOAEdit = *req.SOAEdit
	}
	if req.SOAEditAPI != nil {
		v := *req.SOAEditAPI
		d.SOAEditAPI = &v
		if v == SOAEditAPIDefault {
			d.SOAEditAPI = nil
		}
	}
	if req.APIRectify != nil {
		v := *req.APIRectify
		d.APIRectify = &v
	}
	if req.NSEC3Param != nil {
		d.NSEC3Param = *req.NSEC3Param
		if d.NSEC3Param == "" {
			d.NSEC3Narrow = false
		}
	}
	if req.NSEC3Narrow != nil {
		d.NSEC3Narrow = *req.NSEC3Narrow
	}
	if bindType != BINDSecondary && req.Masters != nil {
		d.Masters = append([]string(nil), req.Masters...)
	}
}

// nowComments are comments as kept: modified_at set to now where not
// given, as PowerDNS does.
func nowComments(cs []Comment, now time.Time) []Comment {
	out := make([]Comment, 0, len(cs))
	for _, c := range cs {
		if c.ModifiedAt == "" {
			c.ModifiedAt = json.Number(strconv.FormatInt(now.Unix(), 10))
		}
		out = append(out, c)
	}
	return out
}

// commentObjects are kept comments as answered (modified_at a number).
func commentObjects(cs []Comment) []Comment {
	out := make([]Comment, 0, len(cs))
	for _, c := range cs {
		if c.ModifiedAt == "" {
			c.ModifiedAt = "0"
		}
		out = append(out, c)
	}
	return out
}

// mergeData adds to the RRsets named serves (out, from rrsetObjects) the
// comments and disabled records the side file keeps, and the RRsets it
// keeps that named does not serve (comments only, or every record
// disabled), keeping those keep selects. Without includeDisabled no
// disabled record is shown, nor an RRset left without records.
func mergeData(out []RRset, d *zoneData, includeDisabled bool, keep func(name, typ string) bool) []RRset {
	if len(d.RRsets) == 0 {
		return out
	}
	seen := map[string]bool{}
	for i := range out {
		k := rrsetKey(out[i].Name, out[i].Type)
		seen[k] = true
		rs := d.RRsets[k]
		if rs == nil {
			continue
		}
		out[i].Comments = commentObjects(rs.Comments)
		if !includeDisabled {
			continue
		}
		served := map[string]bool{}
		for _, r := range out[i].Records {
			served[contentKey(r.Content)] = true
		}
		for _, c := range rs.Disabled {
			if !served[contentKey(c)] {
				out[i].Records = append(out[i].Records, Record{Content: c, Disabled: true})
			}
		}
	}
	keys := make([]string, 0, len(d.RRsets))
	for k := range d.RRsets {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		rs := d.RRsets[k]
		if !keep(rs.Name, rs.Type) {
			continue
		}
		recs := []Record{}
		if includeDisabled {
			for _, c := range rs.Disabled {
				recs = append(recs, Record{Content: c, Disabled: true})
			}
		}
		if len(recs) == 0 && (!includeDisabled || len(rs.Comments) == 0) {
			continue
		}
		ttl := rs.TTL
		out = append(out, RRset{Name: rs.Name, Type: rs.Type, TTL: &ttl, Records: recs, Comments: commentObjects(rs.Comments)})
	}
	return out
}
