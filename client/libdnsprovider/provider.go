// Package libdnsprovider is a libdns provider (github.com/libdns/libdns)
// for the zone_api REST API, built on the Go client (package client): ACME
// clients such as Caddy's (certmagic) and other libdns users manage the
// records of BIND zones through the API, with a token that may be scoped
// to what they need (e.g. only _acme-challenge TXT records).
//
// Names are relative to the zone as libdns expects ("@" is the apex); they
// are sent to the API as absolute names, so no relative name is ever taken
// for an absolute one. Each call that changes records is one atomic UPDATE
// of the zone: AppendRecords adds, SetRecords replaces the RRsets it names
// (one PATCH of "replace" changes), DeleteRecords removes exactly the
// records that match.
package libdnsprovider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/libdns/libdns"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/client"
	"github.com/zoneapi/caddy-zoneapi/internal/txtdata"
)

// Provider manages records through the zone_api REST API. Set Endpoint
// and Token, or Client. It is safe for concurrent use.
type Provider struct {
	// Endpoint is the URL under which /api/v1 is served, e.g.
	// https://dns.example.com:8443.
	Endpoint string `json:"endpoint,omitempty"`
	// Token is the bearer token sent to the API.
	Token string `json:"token,omitempty"`

	// Client, when set, is used instead of one made from Endpoint and
	// Token.
	Client *client.Client `json:"-"`
	// Expand, when set, is applied to Endpoint and Token before the first
	// request (e.g. Caddy's placeholder replacer, so that {env.X} and
	// {file.X} are read only when needed).
	Expand func(string) string `json:"-"`

	once sync.Once
	c    *client.Client
	err  error
}

// api returns the client, making it on first use.
func (p *Provider) api() (*client.Client, error) {
	p.once.Do(func() {
		if p.Client != nil {
			p.c = p.Client
			return
		}
		endpoint, token := p.Endpoint, p.Token
		if p.Expand != nil {
			endpoint, token = p.Expand(endpoint), p.Expand(token)
		}
		if endpoint == "" {
			p.err = errors.New("zone_api provider: no endpoint")
			return
		}
		p.c, p.err = client.New(endpoint, token, client.WithUserAgent("zoneapi-libdns"))
	})
	return p.c, p.err
}

// GetRecords returns every record of the zone, SOA included, with names
// relative to the zone.
func (p *Provider) GetRecords(ctx context.Context, zone string) ([]libdns.Record, error) {
	c, err := p.api()
	if err != nil {
		return nil, err
	}
	sets, _, err := c.RRsets(ctx, zone)
	if err != nil {
		return nil, err
	}
	return fromRRsets(sets, zone)
}

// AppendRecords adds the records, leaving existing ones alone (a record
// that exists already stays, once). All are added in one UPDATE.
func (p *Provider) AppendRecords(ctx context.Context, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	c, err := p.api()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	changes := make([]client.Change, 0, len(recs))
	for _, r := range recs {
		ch, err := toChange(client.OpAdd, r.RR(), zone)
		if err != nil {
			return nil, err
		}
		changes = append(changes, ch)
	}
	if len(changes) == 1 {
		// A single add takes the API's group-commit path.
		ch := changes[0]
		_, err = c.AddRecord(ctx, zone, client.Record{Name: ch.Name, Type: ch.Type, Value: ch.Value, TTL: ch.TTL})
	} else {
		_, err = c.Batch(ctx, zone, changes)
	}
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// SetRecords makes each (name, type) of recs hold exactly the records of
// recs with that name and type, leaving other RRsets alone: one atomic
// UPDATE of "replace" changes, so on error nothing changed (the error is
// then a libdns.AtomicErr).
func (p *Provider) SetRecords(ctx context.Context, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	c, err := p.api()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	type key struct{ name, typ string }
	idx := map[key]int{}
	var changes []client.Change
	for _, r := range recs {
		ch, err := toChange(client.OpReplace, r.RR(), zone)
		if err != nil {
			return nil, err
		}
		k := key{strings.ToLower(ch.Name), ch.Type}
		if i, ok := idx[k]; ok {
			changes[i].Values = append(changes[i].Values, ch.Value)
			continue
		}
		idx[k] = len(changes)
		ch.Values, ch.Value = []string{ch.Value}, ""
		changes = append(changes, ch)
	}
	if _, err := c.Batch(ctx, zone, changes); err != nil {
		return nil, libdns.AtomicErr(err)
	}
	return recs, nil
}

// DeleteRecords deletes the records of the zone that match recs by
// libdns's rules: the name must match; an empty type, a zero TTL or empty
// data match any. Records that do not exist are not an error. It returns
// the records deleted, as they were in the zone. The deletions are one
// UPDATE.
func (p *Provider) DeleteRecords(ctx context.Context, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	c, err := p.api()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	// Read what is there: the whole zone when a type is open, else only
	// the RRsets named.
	var existing []libdns.Record
	wild := false
	for _, r := range recs {
		if r.RR().Type == "" {
			wild = true
		}
	}
	if wild {
		if existing, err = p.GetRecords(ctx, zone); err != nil {
			return nil, err
		}
	} else {
		type key struct{ name, typ string }
		seen := map[key]bool{}
		for _, r := range recs {
			rr := r.RR()
			k := key{strings.ToLower(libdns.AbsoluteName(rr.Name, zone)), strings.ToUpper(rr.Type)}
			if seen[k] {
				continue
			}
			seen[k] = true
			page, err := c.ListRecords(ctx, zone, client.ListRecordsOptions{Name: k.name, Type: k.typ})
			if err != nil {
				return nil, err
			}
			got, err := fromRRsets(page.RRsets, zone)
			if err != nil {
				return nil, err
			}
			existing = append(existing, got...)
		}
	}
	var deleted []libdns.Record
	var changes []client.Change
	for _, have := range existing {
		h := have.RR()
		if h.Type == "SOA" {
			continue
		}
		for _, want := range recs {
			if !matches(want.RR(), h, zone) {
				continue
			}
			ch, err := toChange(client.OpRemove, h, zone)
			if err != nil {
				return nil, err
			}
			ch.TTL = nil
			changes = append(changes, ch)
			deleted = append(deleted, have)
			break
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if _, err := c.Batch(ctx, zone, changes); err != nil {
		return nil, err
	}
	return deleted, nil
}

// ListZones lists the zones the API manages, as FQDNs.
func (p *Provider) ListZones(ctx context.Context) ([]libdns.Zone, error) {
	c, err := p.api()
	if err != nil {
		return nil, err
	}
	var out []libdns.Zone
	for z, err := range c.AllZones(ctx, client.ListZonesOptions{Limit: 1000}) {
		if err != nil {
			return nil, err
		}
		out = append(out, libdns.Zone{Name: dns.Fqdn(z.Name)})
	}
	return out, nil
}

// matches applies libdns's deletion rules: want's name must equal have's;
// its type, TTL and data match anything when empty or zero.
func matches(want, have libdns.RR, zone string) bool {
	if !strings.EqualFold(libdns.AbsoluteName(want.Name, zone), libdns.AbsoluteName(have.Name, zone)) {
		return false
	}
	if want.Type != "" && !strings.EqualFold(want.Type, have.Type) {
		return false
	}
	if want.TTL != 0 && want.TTL.Round(time.Second) != have.TTL {
		return false
	}
	if want.Data == "" {
		return true
	}
	// Compare in canonical form: parse want's data as the server would.
	canon, err := canonicalData(want, zone)
	if err != nil {
		return false
	}
	return canon == have.Data
}

// canonicalData is rr's data as GetRecords would return it.
func canonicalData(rr libdns.RR, zone string) (string, error) {
	ch, err := toChange(client.OpAdd, rr, zone)
	if err != nil {
		return "", err
	}
	if rr.TTL == 0 {
		ch.TTL = new(uint32(0))
	}
	got, err := fromValue(ch.Name, ch.Type, *ch.TTL, ch.Value, zone)
	if err != nil {
		return "", err
	}
	return got.RR().Data, nil
}

// toChange turns a libdns RR into a change of the API: an absolute name,
// the data in master-file form (TXT quoted), the TTL in seconds (none when
// zero: the zone's default).
func toChange(op string, rr libdns.RR, zone string) (client.Change, error) {
	if rr.Name == "" {
		return client.Change{}, fmt.Errorf("record %s %q: no name (use \"@\" for the zone's apex)", rr.Type, rr.Data)
	}
	typ := strings.ToUpper(rr.Type)
	if typ == "" {
		return client.Change{}, fmt.Errorf("record %q: no type", rr.Name)
	}
	ch := client.Change{Op: op, Name: libdns.AbsoluteName(rr.Name, zone), Type: typ, Value: rr.Data}
	if typ == "TXT" {
		ch.Value = txtdata.Quote(rr.Data)
	}
	if rr.TTL > 0 {
		s := uint32(rr.TTL.Round(time.Second) / time.Second)
		ch.TTL = &s
	}
	return ch, nil
}

// rdata is rr's data in master-file form.
func rdata(rr dns.RR) string {
	return strings.TrimSpace(strings.TrimPrefix(rr.String(), rr.Header().String()))
}

// fromRRsets turns the API's RRsets into libdns records.
func fromRRsets(sets []client.RRset, zone string) ([]libdns.Record, error) {
	var out []libdns.Record
	for _, s := range sets {
		for _, v := range s.Values {
			r, err := fromValue(s.Name, s.Type, s.TTL, v, zone)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// fromValue turns one record of the API into a libdns record: a typed one
// where libdns has the type, else an RR.
func fromValue(name, typ string, ttl uint32, value, zone string) (libdns.Record, error) {
	abs := name
	if !strings.HasSuffix(abs, ".") {
		abs = libdns.AbsoluteName(abs, zone)
	}
	rr := libdns.RR{Name: libdns.RelativeName(abs, zone), TTL: time.Duration(ttl) * time.Second, Type: typ, Data: value}
	zp := dns.NewZoneParser(strings.NewReader(fmt.Sprintf("%s %d IN %s %s\n", abs, ttl, typ, value)), dns.Fqdn(zone), "")
	parsed, ok := zp.Next()
	if !ok || zp.Err() != nil || parsed == nil {
		// A type miekg/dns cannot parse: pass the data on as it came.
		return rr, nil
	}
	switch v := parsed.(type) {
	case *dns.TXT:
		rr.Data = txtdata.Join(v.Txt)
	case *dns.SVCB:
		rr.Data = svcbData(v.Priority, v.Target, v.Value)
	case *dns.HTTPS:
		rr.Data = svcbData(v.Priority, v.Target, v.Value)
	default:
		rr.Data = rdata(parsed)
	}
	if r, err := rr.Parse(); err == nil {
		return r, nil
	}
	return rr, nil
}

// svcbData is SVCB/HTTPS data as libdns writes it.
func svcbData(prio uint16, target string, kvs []dns.SVCBKeyValue) string {
	params := libdns.SvcParams{}
	for _, kv := range kvs {
		v := kv.String()
		if v == "" {
			params[kv.Key().String()] = nil
			continue
		}
		params[kv.Key().String()] = strings.Split(v, ",")
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s %s", prio, target, params.String()))
}

// Interface guards
var (
	_ libdns.RecordGetter   = (*Provider)(nil)
	_ libdns.RecordAppender = (*Provider)(nil)
	_ libdns.RecordSetter   = (*Provider)(nil)
	_ libdns.RecordDeleter  = (*Provider)(nil)
	_ libdns.ZoneLister     = (*Provider)(nil)
)
