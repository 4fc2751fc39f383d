// Package catalog keeps a catalog zone (RFC 9432, schema version 2) in
// step with the zones an API instance manages, so that secondaries
// configured as catalog consumers (BIND 9.18's catalog-zones) serve new
// zones and drop deleted ones without any change to their configuration.
//
// The catalog is an ordinary primary zone on the same named: created on
// first use (a zone file with SOA, NS "invalid." and version "2", then
// rndc addzone) and changed only by RFC 2136 updates signed with the
// module's update key. Each member zone is one PTR record,
//
//	<label>.zones.<catalog>. 0 IN PTR <member>.
//
// where label is the hex SHA-1 of the member's name in lower-case wire
// form: unique per member, the same in every API instance and after any
// crash, so adding and removing a member are idempotent. With a group
// configured, "group.<label>.zones.<catalog>. 0 IN TXT <group>" is added
// in the same update.
//
// The package knows neither HTTP nor Caddy: it talks to named through
// the DNS and Control interfaces, and Catalog implements the zone
// lifecycle's hook (ZoneCreated, ZoneDeleted).
package catalog

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// DNS is what the catalog needs of a DNS client of named: signed updates
// and zone transfers. dnsupdate.Client has it.
type DNS interface {
	Update(ctx context.Context, zone string, m *dns.Msg) error
	Transfer(ctx context.Context, zone string) ([]dns.RR, error)
}

// Control is what the catalog needs of named's control channel; the rndc
// Client has it.
type Control interface {
	ShowZone(ctx context.Context, zone string) (string, error)
	AddZone(ctx context.Context, zs *rndc.ZoneStatement) (string, error)
}

// Catalog is one catalog zone and the way to change it. Set every field
// but Group, AlsoNotify and AllowTransfer before use. It is safe for
// concurrent use.
type Catalog struct {
	// Zone is the catalog zone's name, without a trailing dot.
	Zone string
	// Group, if set, is the RFC 9432 group property of every member.
	Group string
	// Dir is where the catalog's zone file is written on first use.
	Dir string
	// UpdateKey is the TSIG key the catalog accepts updates from (and
	// that may transfer it).
	UpdateKey string
	// AlsoNotify and AllowTransfer are the elements of the catalog's
	// also-notify and allow-transfer lists, e.g. rndc.Words("192.0.2.2",
	// "port", "5300"). Empty AllowTransfer leaves named's default.
	AlsoNotify, AllowTransfer []rndc.Value
	// DNS sends the updates and reads the catalog; Control creates it.
	DNS     DNS
	Control Control
	// IsNotFound reports whether a Control error means "no such zone";
	// IsExists whether it means "already exists".
	IsNotFound, IsExists func(error) bool

	mu    sync.Mutex
	ready bool
}

// Label returns the member label of zone: hex SHA-1 of its lower-case
// wire-form name.
func Label(zone string) string {
	name := dns.Fqdn(strings.ToLower(zone))
	buf := make([]byte, 256)
	n, err := dns.PackDomainName(name, buf, 0, nil, false)
	if err != nil {
		sum := sha1.Sum([]byte(name))
		return hex.EncodeToString(sum[:])
	}
	sum := sha1.Sum(buf[:n])
	return hex.EncodeToString(sum[:])
}

func (c *Catalog) origin() string { return dns.Fqdn(strings.ToLower(c.Zone)) }

// memberName is <label>.zones.<catalog>.
func (c *Catalog) memberName(zone string) string {
	return Label(zone) + ".zones." + c.origin()
}

// FilePath is the catalog's zone file, <Dir>/<catalog>.catalog.db: not
// the <zone>.zone of the API's zones, so that nothing takes the catalog
// for a zone the API manages (the zone lifecycle's reconcile adopts zone
// files named serves that its index lost).
func (c *Catalog) FilePath() string {
	return filepath.Join(c.Dir, strings.TrimSuffix(strings.ToLower(c.Zone), ".")+".catalog.db")
}

// Ensure creates the catalog zone in named unless named already serves
// it. Once it succeeded it does nothing (named keeps added zones across
// restarts). Several API instances may race: the loser's addzone says
// "already exists", which is success.
func (c *Catalog) Ensure(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready {
		return nil
	}
	zone := strings.TrimSuffix(strings.ToLower(c.Zone), ".")
	if _, err := c.Control.ShowZone(ctx, zone); err == nil {
		c.ready = true
		return nil
	} else if !c.IsNotFound(err) {
		return fmt.Errorf("looking for catalog zone %s: %w", zone, err)
	}
	path := c.FilePath()
	// Written once, exclusively: a file already there (an earlier run's,
	// or another instance's) is the catalog's and is kept.
	if err := zonestore.CreateFileIn(c.Dir, filepath.Base(path), c.render()); err != nil && !errors.Is(err, zonestore.ErrExists) {
		return fmt.Errorf("writing catalog zone file: %w", err)
	}
	if _, err := c.Control.AddZone(ctx, c.statement(zone, path)); err != nil && !c.IsExists(err) {
		return fmt.Errorf("adding catalog zone %s: %w", zone, err)
	}
	c.ready = true
	return nil
}

// render returns the catalog's initial zone file: SOA, NS invalid.,
// version "2" (RFC 9432 section 4).
func (c *Catalog) render() []byte {
	o := c.origin()
	rrs := []dns.RR{
		&dns.SOA{Hdr: dns.RR_Header{Name: o, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 0},
			Ns: "invalid.", Mbox: "invalid.", Serial: 1, Refresh: 60, Retry: 30, Expire: 604800, Minttl: 0},
		&dns.NS{Hdr: dns.RR_Header{Name: o, Rrtype: dns.TypeNS, Class: dns.ClassINET, Ttl: 0}, Ns: "invalid."},
		&dns.TXT{Hdr: dns.RR_Header{Name: "version." + o, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 0}, Txt: []string{"2"}},
	}
	var b strings.Builder
	b.WriteString("; catalog zone (RFC 9432) kept by zoneapi; changed by dynamic updates\n")
	for _, rr := range rrs {
		b.WriteString(rr.String())
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// statement is the catalog's addzone statement.
func (c *Catalog) statement(zone, path string) *rndc.ZoneStatement {
	zs := &rndc.ZoneStatement{Name: zone}
	zs.Add("type", rndc.Word("primary"))
	zs.Add("file", rndc.Quoted(path))
	// notify-delay 1: named's default (5 s) holds back a NOTIFY that
	// follows another within that time, and a catalog changes with every
	// create and delete. Not 0: a secondary that started before the
	// catalog existed is still busy with its failed refresh when the
	// catalog's first NOTIFYs come, and queues them; the one a second
	// later gets through (measured with BIND 9.18: 1.5 s to the first
	// zone instead of 5.5 s with the default and 55 s with 0).
	zs.Add("notify-delay", rndc.Word("1"))
	key := rndc.Value{rndc.Word("key"), rndc.Quoted(c.UpdateKey)}
	if c.UpdateKey != "" {
		zs.Add("allow-update", rndc.List(key))
	}
	if len(c.AlsoNotify) > 0 {
		zs.Add("also-notify", rndc.List(c.AlsoNotify...))
	}
	if len(c.AllowTransfer) > 0 {
		elems := slices.Clone(c.AllowTransfer)
		if c.UpdateKey != "" {
			elems = append(elems, key)
		}
		zs.Add("allow-transfer", rndc.List(elems...))
	}
	return zs
}

// update builds an UPDATE of the catalog.
func (c *Catalog) update() *dns.Msg {
	m := new(dns.Msg)
	m.SetUpdate(c.origin())
	return m
}

// addRRs are the records that make zone a member.
func (c *Catalog) addRRs(zone string) []dns.RR {
	name := c.memberName(zone)
	rrs := []dns.RR{&dns.PTR{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypePTR, Class: dns.ClassINET, Ttl: 0},
		Ptr: dns.Fqdn(strings.ToLower(zone))}}
	if c.Group != "" {
		rrs = append(rrs, &dns.TXT{Hdr: dns.RR_Header{Name: "group." + name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 0},
			Txt: []string{c.Group}})
	}
	return rrs
}

// removeRRs deletes every record of the member label (and its
// properties).
func (c *Catalog) removeRRs(label string) []dns.RR {
	name := label + ".zones." + c.origin()
	return []dns.RR{
		&dns.ANY{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeANY, Class: dns.ClassANY}},
		&dns.ANY{Hdr: dns.RR_Header{Name: "group." + name, Rrtype: dns.TypeANY, Class: dns.ClassANY}},
		&dns.ANY{Hdr: dns.RR_Header{Name: "coo." + name, Rrtype: dns.TypeANY, Class: dns.ClassANY}},
	}
}

func (c *Catalog) send(ctx context.Context, m *dns.Msg) error {
	return c.DNS.Update(ctx, strings.TrimSuffix(c.origin(), "."), m)
}

// Add makes zone a member (creating the catalog first if need be). It is
// idempotent.
func (c *Catalog) Add(ctx context.Context, zone string) error {
	if err := c.Ensure(ctx); err != nil {
		return err
	}
	m := c.update()
	m.Insert(c.addRRs(zone))
	if err := c.send(ctx, m); err != nil {
		return fmt.Errorf("adding %s to catalog %s: %w", zone, c.Zone, err)
	}
	return nil
}

// Remove takes zone out of the catalog. It is idempotent.
func (c *Catalog) Remove(ctx context.Context, zone string) error {
	if err := c.Ensure(ctx); err != nil {
		return err
	}
	m := c.update()
	m.Ns = append(m.Ns, c.removeRRs(Label(zone))...)
	if err := c.send(ctx, m); err != nil {
		return fmt.Errorf("removing %s from catalog %s: %w", zone, c.Zone, err)
	}
	return nil
}

// ZoneCreated is the lifecycle hook of a create: zone becomes a member.
func (c *Catalog) ZoneCreated(ctx context.Context, zone, _ string) error { return c.Add(ctx, zone) }

// ZoneDeleted is the lifecycle hook of a delete: zone leaves the catalog.
func (c *Catalog) ZoneDeleted(ctx context.Context, zone string) error { return c.Remove(ctx, zone) }

// Member is one member of the catalog (its type is the zone model's,
// which front ends read).
type Member = zonemodel.CatalogMember

// Members reads the catalog by AXFR and returns its members sorted by
// zone name.
func (c *Catalog) Members(ctx context.Context) ([]Member, error) {
	if err := c.Ensure(ctx); err != nil {
		return nil, err
	}
	rrs, err := c.DNS.Transfer(ctx, strings.TrimSuffix(c.origin(), "."))
	if err != nil {
		return nil, fmt.Errorf("reading catalog %s: %w", c.Zone, err)
	}
	return parseMembers(c.origin(), rrs), nil
}

// parseMembers extracts the members from a catalog's records.
func parseMembers(origin string, rrs []dns.RR) []Member {
	suffix := ".zones." + origin
	groups := map[string]string{}
	var out []Member
	for _, rr := range rrs {
		name := strings.ToLower(rr.Header().Name)
		switch v := rr.(type) {
		case *dns.PTR:
			label, ok := strings.CutSuffix(name, suffix)
			if ok && label != "" && !strings.Contains(label, ".") {
				out = append(out, Member{Zone: zonemodel.ZoneOfOrigin(strings.ToLower(v.Ptr)), Label: label})
			}
		case *dns.TXT:
			rest, ok := strings.CutPrefix(name, "group.")
			if !ok {
				continue
			}
			if label, ok := strings.CutSuffix(rest, suffix); ok && len(v.Txt) > 0 {
				groups[label] = v.Txt[0]
			}
		}
	}
	for i := range out {
		out[i].Group = groups[out[i].Label]
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Zone != out[j].Zone {
			return out[i].Zone < out[j].Zone
		}
		return out[i].Label < out[j].Label
	})
	return out
}

// Report is what a reconcile found (and, unless it was a dry run,
// fixed): the zone model's type, which front ends read.
type Report = zonemodel.CatalogReport

// Diff compares members with the managed zones: managed zones without a
// member (or only with a label other than theirs), and members whose zone
// is not managed or whose label is not the zone's.
func Diff(members []Member, managed []string) (missing []string, stray []Member) {
	want := map[string]bool{}
	for _, z := range managed {
		want[zonemodel.ZoneOfOrigin(strings.ToLower(z))] = true
	}
	return diff(members, want)
}

func diff(members []Member, want map[string]bool) (missing []string, stray []Member) {
	have := map[string]bool{}
	for _, m := range members {
		if want[m.Zone] && m.Label == Label(m.Zone) {
			have[m.Zone] = true
			continue
		}
		stray = append(stray, m)
	}
	for z := range want {
		if !have[z] {
			missing = append(missing, z)
		}
	}
	sort.Strings(missing)
	return missing, stray
}

// Reconcile compares the catalog with the managed zones that list returns
// and, when fix is true, repairs every difference: each zone is
// re-checked under lock(zone) (so a create or delete in progress is not
// undone) with recheck, which reports whether the zone is managed now.
// lock may be nil.
func (c *Catalog) Reconcile(ctx context.Context, managed []string, fix bool,
	lock func(ctx context.Context, zone string) (func(), error), recheck func(zone string) (bool, error)) (*Report, error) {
	members, err := c.Members(ctx)
	if err != nil {
		return nil, err
	}
	// The catalog is never its own member, even if it is listed.
	self := zonemodel.ZoneOfOrigin(strings.ToLower(c.Zone))
	managed = slices.DeleteFunc(slices.Clone(managed), func(z string) bool {
		return zonemodel.ZoneOfOrigin(strings.ToLower(z)) == self
	})
	missing, stray := Diff(members, managed)
	rep := &Report{Members: len(members), Zones: len(managed), Missing: missing, Stray: stray}
	if rep.Missing == nil {
		rep.Missing = []string{}
	}
	if rep.Stray == nil {
		rep.Stray = []Member{}
	}
	if !fix {
		return rep, nil
	}
	do := func(zone string, f func() error) error {
		if lock != nil {
			unlock, err := lock(ctx, zone)
			if err != nil {
				return err
			}
			defer unlock()
		}
		return f()
	}
	for _, z := range missing {
		err := do(z, func() error {
			if ok, err := recheck(z); err != nil || !ok {
				return err
			}
			return c.Add(ctx, z)
		})
		if err != nil {
			return rep, err
		}
	}
	for _, m := range stray {
		err := do(m.Zone, func() error {
			if m.Label == Label(m.Zone) {
				if ok, err := recheck(m.Zone); err != nil || ok {
					return err // managed again meanwhile: keep it
				}
			}
			u := c.update()
			u.Ns = append(u.Ns, c.removeRRs(m.Label)...)
			return c.send(ctx, u)
		})
		if err != nil {
			return rep, err
		}
	}
	rep.Fixed = true
	return rep, nil
}
