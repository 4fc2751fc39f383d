package zoneservice

import (
	"context"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The kinds of refusals that depend on where a zone's configuration comes
// from (zonemodel's; see package inventory).
var (
	ErrNamedConf = zonemodel.ErrNamedConf
	ErrUnmanaged = zonemodel.ErrUnmanaged
)

// AdoptOptions are the choices of an adoption (zonemodel.AdoptOptions).
type AdoptOptions = zonemodel.AdoptOptions

// Adopted is what an adoption did (zonemodel.Adopted).
type Adopted = zonemodel.Adopted

// Adopt brings a zone named serves but the API does not manage under
// management: the zone's index entry (so it is listed, scoped and
// deleted like a zone created here) and its catalog member (and Hook's
// ZoneCreated), without reloading the zone or touching its file. With
// opts.GrantUpdateKey it first grants the update key by modzone (named
// reconfigures the zone in place: it keeps answering, with the same
// serial). Only a zone of the new-zone database can be adopted: a zone of
// named.conf is refused with ErrNamedConf, whose Clause is what to add to
// its statement in named.conf for the record operations to work. A zone
// the index knows already is refused with ErrExists. Errors:
// ErrCatalogZone, ErrExists, ErrBusy, ErrNotFound, ErrNamedConf, ErrControl, ErrOutcomeUnknown
// (modzone), ErrInvalid (no update key to grant), ErrHook, ErrStorage.
func (s *Service) Adopt(ctx context.Context, name string, opts AdoptOptions) (*Adopted, error) {
	if s.IsCatalogZone(name) {
		return nil, newErr(ErrCatalogZone, name, "", "zone "+name+" is the catalog zone", nil)
	}
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := s.settle(ctx, name); err != nil {
		return nil, err
	}
	if e, managed, err := s.Store.Get(name); err != nil {
		return nil, newErr(ErrStorage, name, "", "reading the zone index", err)
	} else if managed {
		return nil, newErr(ErrExists, name, "", "zone "+name+" is managed by the API already (a "+e.Type+" zone)", nil)
	}
	st, err := s.Control.ZoneStatus(ctx, name)
	if err != nil && !notLoaded(err) {
		return nil, s.commandErr(name, "zonestatus", err)
	}
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	if err != nil {
		return nil, s.commandErr(name, "showzone", err)
	}
	typ := zc.Type()
	if st != nil && !st.Reconfigurable {
		return nil, s.namedConfRefusal(name, zc)
	}
	res := &Adopted{Type: typ}
	if opts.GrantUpdateKey {
		if err := s.grantUpdateKey(ctx, zc, res); err != nil {
			return nil, err
		}
	}
	if err := s.zoneCreated(ctx, name, typ); err != nil {
		return nil, newErr(ErrHook, name, "", "adding zone "+name+" to the catalog", err)
	}
	e := zonestore.Entry{Name: name, Type: typ, Created: s.now()}
	if f := fileOf(zc); f != "" && f != s.Store.FilePath(name) {
		e.File = f
	}
	if err := s.Store.Put(e); err != nil {
		return nil, newErr(ErrStorage, name, "", "adding zone "+name+" to the index", err)
	}
	s.recordZone(ctx, history.ZoneAdopted, name, true)
	s.log().Info("adopted a zone", zap.String("zone", name), zap.String("zone_type", typ), zap.String("granted", res.Granted))
	return res, nil
}

// grantUpdateKey adds the update key's grant to zc, unless it has it,
// and sends the statement by modzone.
func (s *Service) grantUpdateKey(ctx context.Context, zc *rndc.ZoneStatement, res *Adopted) error {
	name := zc.Name
	if s.UpdateKey == "" {
		return newErr(ErrInvalid, name, "", "no update key is configured, so there is none to grant", nil)
	}
	if t := zc.Type(); t != "primary" {
		return newErr(ErrWrongType, name, "", "zone "+name+" is a "+t+" zone: it has no records to change here, so no update key to grant", nil)
	}
	if grants(zc, s.UpdateKey) {
		return nil
	}
	c := updateGrant(zc, s.UpdateKey)
	zc.Set(c.Name, c.Value...)
	text, err := s.Control.ModZone(ctx, zc)
	if err != nil {
		return s.commandErr(name, "modzone", err)
	}
	res.Granted, res.Details = c.String(), text
	return nil
}

// namedConfRefusal is the ErrNamedConf of a zone of named.conf: it names
// the clause that lets the API change the zone's records, and the
// statement with it.
func (s *Service) namedConfRefusal(name string, zc *rndc.ZoneStatement) *Error {
	e := newErr(ErrNamedConf, name, "", "zone "+name+" is configured in named.conf, which modzone and delzone cannot change durably, so the API cannot manage it", nil)
	if s.UpdateKey != "" && zc.Type() == "primary" && !grants(zc, s.UpdateKey) {
		c := updateGrant(zc, s.UpdateKey)
		with := *zc
		with.Clauses = append([]rndc.Clause(nil), zc.Clauses...)
		with.Set(c.Name, c.Value...)
		e.Clause, e.Statement = c.String(), with.String()
	}
	return e
}

// updateGrant returns the clause that grants key the zone's updates: its
// update-policy with `grant "key" zonesub ANY;` added, when it has one
// (named allows no allow-update beside it), else its allow-update with
// `key "key";` added.
func updateGrant(zc *rndc.ZoneStatement, key string) rndc.Clause {
	if v, ok := zc.Get("update-policy"); ok {
		if elems, ok := v.Elems(); ok {
			grant := rndc.Value{rndc.Word("grant"), rndc.Quoted(key), rndc.Word("zonesub"), rndc.Word("ANY")}
			return rndc.Clause{Name: "update-policy", Value: rndc.Value{rndc.List(append(append([]rndc.Value(nil), elems...), grant)...)}}
		}
	}
	var elems []rndc.Value
	if v, ok := zc.Get("allow-update"); ok {
		if old, ok := v.Elems(); ok {
			for _, e := range old {
				if e.String() != "none" {
					elems = append(elems, e)
				}
			}
		}
	}
	elems = append(elems, rndc.Value{rndc.Word("key"), rndc.Quoted(key)})
	return rndc.Clause{Name: "allow-update", Value: rndc.Value{rndc.List(elems...)}}
}

// grants reports whether the zone accepts updates signed with key: its
// allow-update names the key, or its update-policy grants it (or is
// "local", which grants named's session key only, so not).
func grants(zc *rndc.ZoneStatement, key string) bool {
	key = strings.TrimSuffix(strings.ToLower(key), ".")
	for _, clause := range []string{"allow-update", "update-policy"} {
		v, ok := zc.Get(clause)
		if !ok {
			continue
		}
		elems, ok := v.Elems()
		if !ok {
			continue
		}
		for _, e := range elems {
			w := e.Strings()
			if clause == "allow-update" && len(w) == 2 && w[0] == "key" && sameKey(w[1], key) {
				return true
			}
			if clause == "update-policy" && len(w) >= 2 && w[0] == "grant" && sameKey(w[1], key) {
				return true
			}
		}
	}
	return false
}

func sameKey(a, key string) bool { return strings.TrimSuffix(strings.ToLower(a), ".") == key }

// fromNamedConf reports whether named says the zone is configured in
// named.conf (zonestatus: "reconfigurable via modzone: no"). A zone named
// does not know, or cannot report, is not (the operation then fails as it
// would).
func (s *Service) fromNamedConf(ctx context.Context, name string) bool {
	st, err := s.Control.ZoneStatus(ctx, name)
	return err == nil && !st.Reconfigurable
}
