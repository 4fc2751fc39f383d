package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// fakeNamed is a zone service over records held in memory (what named
// would serve) and a real zone directory's side files: enough of the
// service for the side file's tests, below the unit under test.
type fakeNamed struct {
	mu      sync.Mutex
	store   *zonestore.Store
	sides   frontend.SideFiles // f.store unless set
	zones   map[string]*fakeZone
	failing bool   // Apply fails (named refused the UPDATE)
	catalog string // zone_api's catalog zone, every zone a member
	// retransfers are the zones asked to transfer anew, in order.
	retransfers []string
	// lostReply: Apply applies the UPDATE and answers that its outcome
	// is unknown (named's reply lost, as on a timeout).
	lostReply bool
}

type fakeZone struct {
	info   ZoneInfo
	serial uint32
	sets   map[string]*dnsupdate.RRset // by "name TYPE"
}

var errFakeNotFound = &zoneservice.Error{Kind: zoneservice.ErrNotFound, Msg: "zone not found"}

func newFakeNamed(t *testing.T) *fakeNamed {
	s, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &fakeNamed{store: s, zones: map[string]*fakeZone{}}
}

func (f *fakeNamed) get(zone string) (*fakeZone, error) {
	z := f.zones[zone]
	if z == nil {
		return nil, errFakeNotFound
	}
	return z, nil
}

// served are the zone's records as "name TYPE value" lines, sorted.
func (f *fakeNamed) served(zone string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.zones[zone].sets {
		for _, v := range s.Values {
			out = append(out, s.Name+" "+s.Type+" "+v)
		}
	}
	sort.Strings(out)
	return out
}

func (f *fakeNamed) ListZones(context.Context) ([]ZoneInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ZoneInfo
	for _, z := range f.zones {
		out = append(out, z.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (f *fakeNamed) DescribeZone(_ context.Context, zone string) (*ZoneInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	z, err := f.get(zone)
	if err != nil {
		return nil, err
	}
	info := z.info
	info.Serial, info.HasSerial = z.serial, true
	return &info, nil
}

// SearchRecords is Records when a record matches, as the adapter's.
func (f *fakeNamed) SearchRecords(ctx context.Context, zone string, match func(owner, value string) bool) ([]dnsupdate.RRset, error) {
	_, sets, err := f.Records(ctx, zone)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		for _, v := range s.Values {
			if match(s.Name, v) {
				return sets, nil
			}
		}
	}
	return nil, nil
}

func (f *fakeNamed) Records(_ context.Context, zone string) (uint32, []dnsupdate.RRset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	z, err := f.get(zone)
	if err != nil {
		return 0, nil, err
	}
	var out []dnsupdate.RRset
	for _, s := range z.sets {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name+out[i].Type < out[j].Name+out[j].Type })
	return z.serial, out, nil
}

func (f *fakeNamed) Apply(_ context.Context, zone string, changes []dnsupdate.Change) (uint32, uint32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	z, err := f.get(zone)
	if err != nil {
		return 0, 0, err
	}
	if f.failing {
		return 0, 0, errors.New("named refused the update")
	}
	for _, c := range changes {
		name := FQDN(c.Name)
		k := name + " " + c.Type
		s := z.sets[k]
		switch c.Op {
		case dnsupdate.OpDelete:
			delete(z.sets, k)
		case dnsupdate.OpReplace:
			z.sets[k] = &dnsupdate.RRset{Name: name, Type: c.Type, TTL: *c.TTL, Values: slices.Clone(c.Values)}
		case dnsupdate.OpAdd:
			if s == nil {
				s = &dnsupdate.RRset{Name: name, Type: c.Type, TTL: *c.TTL}
				z.sets[k] = s
			}
			if !slices.Contains(s.Values, c.Value) {
				s.Values = append(s.Values, c.Value)
			}
		case dnsupdate.OpRemove:
			if s != nil {
				s.Values = slices.DeleteFunc(s.Values, func(v string) bool { return v == c.Value })
				if len(s.Values) == 0 {
					delete(z.sets, k)
				}
			}
		}
	}
	z.serial++
	if f.lostReply {
		return 0, 0, &zoneservice.Error{Kind: zoneservice.ErrOutcomeUnknown, Zone: zone, Msg: "named did not answer the update", Err: errors.New("i/o timeout")}
	}
	return z.serial - 1, z.serial, nil
}

// Create adds the zone z (normalised by the handler, as the service
// takes it): a secondary's primaries, a primary's records as its master
// file would have them, with a SOA of its first name server.
func (f *fakeNamed) Create(_ context.Context, zn *zonemodel.Zone, _ string) (*zonemodel.Created, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := zn.Name
	if f.zones[name] != nil {
		return nil, errors.New("exists")
	}
	z := &fakeZone{info: ZoneInfo{Name: name, Type: zn.Type, Created: time.Now().UTC(), Catalog: f.catalog}, serial: 1, sets: map[string]*dnsupdate.RRset{}}
	if zn.Type == zonemodel.TypeSecondary {
		// A secondary zone: no records until a transfer.
		for _, p := range zn.Options().Primaries {
			a := p.Addr.String()
			if p.Port != 0 {
				a = netip.AddrPortFrom(p.Addr, p.Port).String()
			}
			z.info.Primaries = append(z.info.Primaries, a)
		}
	}
	apex := FQDN(name)
	for _, rr := range zn.Records() {
		// name TTL class type data
		fs := strings.SplitN(rr.String(), "\t", 5)
		typ, value := fs[3], fs[4]
		ttl, _ := strconv.ParseUint(fs[1], 10, 32)
		if typ == "SOA" {
			continue
		}
		k := fs[0] + " " + typ
		if typ == "NS" && fs[0] == apex && z.sets[apex+" SOA"] == nil {
			z.sets[apex+" SOA"] = &dnsupdate.RRset{Name: apex, Type: "SOA", TTL: 3600, Values: []string{value + " hostmaster." + apex + " 1 10800 3600 604800 3600"}}
		}
		if z.sets[k] == nil {
			z.sets[k] = &dnsupdate.RRset{Name: fs[0], Type: typ, TTL: uint32(ttl)}
		}
		z.sets[k].Values = append(z.sets[k].Values, value)
	}
	f.zones[name] = z
	return &zonemodel.Created{}, nil
}

// Delete removes the zone and, as the zone service does, its files.
func (f *fakeNamed) Delete(_ context.Context, zone string, _ zonemodel.DeleteOptions) (*zonemodel.Deleted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.get(zone); err != nil {
		return nil, err
	}
	delete(f.zones, zone)
	_, err := f.store.RemoveZoneFiles(zone)
	return &zonemodel.Deleted{}, err
}

func (f *fakeNamed) Import(context.Context, string, *zonemodel.ImportSource, string) (*zonemodel.Imported, error) {
	return nil, errors.New("not here")
}
func (f *fakeNamed) Modify(context.Context, string, *ZoneChange) (*zonemodel.Modified, error) {
	return &zonemodel.Modified{}, nil
}
func (f *fakeNamed) Notify(context.Context, string) (*zonemodel.Notified, error) {
	return &zonemodel.Notified{}, nil
}
func (f *fakeNamed) Retransfer(_ context.Context, zone string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retransfers = append(f.retransfers, zone)
	return "", nil
}
func (f *fakeNamed) Keys(context.Context, string) ([]Key, error)     { return nil, nil }
func (f *fakeNamed) Statistics(context.Context) ([][2]string, error) { return nil, nil }
func (f *fakeNamed) SideFiles() (frontend.SideFiles, error) {
	if f.sides != nil {
		return f.sides, nil
	}
	return f.store, nil
}

// fakeAPI serves the API's routes over f.
func fakeAPI(f *fakeNamed) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range (&API{Service: f}).Routes() {
		mux.HandleFunc(rt.Method+" "+rt.Template, func(w http.ResponseWriter, r *http.Request) {
			zone := ""
			if v := r.PathValue("name"); v != "" {
				zone = strings.TrimSuffix(ZoneName(v), ".")
			}
			rt.Handle(w, r, zone)
		})
	}
	return mux
}

type fakeAnswer struct {
	status int
	body   map[string]any
	list   []any
	raw    string
}

func call(t *testing.T, h http.Handler, method, path string, body any) fakeAnswer {
	t.Helper()
	var rd *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, rd))
	a := fakeAnswer{status: rec.Code, raw: rec.Body.String()}
	_ = json.Unmarshal(rec.Body.Bytes(), &a.body)
	_ = json.Unmarshal(rec.Body.Bytes(), &a.list)
	return a
}

func (a fakeAnswer) rrset(name, typ string) map[string]any {
	sets, _ := a.body["rrsets"].([]any)
	for _, s := range sets {
		m := s.(map[string]any)
		if m["name"] == name && m["type"] == typ {
			return m
		}
	}
	return nil
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

const zp = Prefix + "/zones"

// TestSideFileAttributes: what a create and a PUT give that BIND has no
// place for (kind Native, account, catalog, soa_edit, soa_edit_api,
// api_rectify, nsec3param, nsec3narrow, masters of a primary zone) is
// kept and read back by GET, the list and the metadata routes, as
// PowerDNS does (test_create_zone_with_account, _with_catalog,
// _with_soa_edit, _with_soa_edit_api, _with_nsec3param, test_update_zone);
// before, the zone came back Master with every attribute at its default
// and PUT refused a catalog.
func TestSideFileAttributes(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	r := call(t, h, "POST", zp, map[string]any{"name": "attr.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."},
		"account": "anaccount", "catalog": "catalog.invalid.", "soa_edit": "INCEPTION-INCREMENT", "soa_edit_api": "",
		"api_rectify": true, "nsec3param": "1 0 1 ab", "nsec3narrow": true})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	want := map[string]any{"kind": "Native", "account": "anaccount", "catalog": "catalog.invalid.", "soa_edit": "INCEPTION-INCREMENT",
		"soa_edit_api": "", "api_rectify": true, "nsec3param": "1 0 1 ab", "nsec3narrow": true}
	for _, g := range []fakeAnswer{r, call(t, h, "GET", zp+"/attr.test.", nil)} {
		for k, v := range want {
			if g.body[k] != v {
				t.Errorf("%s = %v, want %v", k, g.body[k], v)
			}
		}
	}
	l := call(t, h, "GET", zp, nil)
	if len(l.list) != 1 || l.list[0].(map[string]any)["account"] != "anaccount" || l.list[0].(map[string]any)["catalog"] != "catalog.invalid." || l.list[0].(map[string]any)["kind"] != "Native" {
		t.Errorf("list = %s", l.raw)
	}
	if m := call(t, h, "GET", zp+"/attr.test./metadata/NSEC3PARAM", nil); js(m.body["metadata"]) != `["1 0 1 ab"]` {
		t.Errorf("NSEC3PARAM metadata = %s", m.raw)
	}
	put := map[string]any{"kind": "Master", "masters": []string{"192.0.2.1", "192.0.2.2"}, "catalog": "other.invalid.", "soa_edit_api": "EPOCH", "soa_edit": "EPOCH"}
	if p := call(t, h, "PUT", zp+"/attr.test.", put); p.status != 204 {
		t.Fatalf("PUT: %d %s", p.status, p.raw)
	}
	g := call(t, h, "GET", zp+"/attr.test.", nil)
	for k, v := range put {
		if js(g.body[k]) != js(v) {
			t.Errorf("after PUT %s = %v, want %v", k, g.body[k], v)
		}
	}
	if g.body["account"] != "anaccount" {
		t.Errorf("a PUT without account changed it: %v", g.body["account"])
	}
	put = map[string]any{"kind": "Native", "catalog": "", "soa_edit_api": "", "soa_edit": "", "account": ""}
	call(t, h, "PUT", zp+"/attr.test.", put)
	g = call(t, h, "GET", zp+"/attr.test.", nil)
	for k, v := range put {
		if js(g.body[k]) != js(v) {
			t.Errorf("after the second PUT %s = %v, want %v", k, g.body[k], v)
		}
	}
	if p := call(t, h, "PUT", zp+"/attr.test.", map[string]any{"kind": "Slave"}); p.status != 422 {
		t.Errorf("kind Slave on a primary zone: %d %s", p.status, p.raw)
	}
}

// TestSideFileCommentsAndDisabled: comments and disabled records are kept
// beside the zone, not sent to named, and shown with the RRsets
// (test_create_zone_with_comments, test_zone_comment_create,
// test_zone_comment_stay_intact, test_zone_rr_update, test_get_zone_rrset
// with include_disabled, test_search_rr_comment); before, both were
// refused (422).
func TestSideFileCommentsAndDisabled(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	comment := map[string]any{"account": "test AAAA", "content": "blah blah AAAA", "modified_at": 11112}
	r := call(t, h, "POST", zp, map[string]any{"name": "c.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}, "rrsets": []any{
		map[string]any{"name": "c.test.", "type": "SOA", "comments": []any{map[string]any{"account": "a", "content": "on the SOA", "modified_at": 1}}},
		map[string]any{"name": "c.test.", "type": "AAAA", "ttl": 3600, "records": []any{map[string]any{"content": "2001:db8::1", "disabled": false}}, "comments": []any{comment}},
		map[string]any{"name": "www.c.test.", "type": "A", "ttl": 120, "records": []any{
			map[string]any{"content": "192.0.2.1", "disabled": false}, map[string]any{"content": "192.0.2.2", "disabled": true}}},
	}})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if got := strings.Join(f.served("c.test"), "|"); strings.Contains(got, "192.0.2.2") || !strings.Contains(got, "192.0.2.1") {
		t.Errorf("named serves %s: want 192.0.2.1 and not the disabled 192.0.2.2", got)
	}
	g := call(t, h, "GET", zp+"/c.test.", nil)
	if c := g.rrset("c.test.", "AAAA"); c == nil || js(c["comments"]) != js([]any{comment}) {
		t.Errorf("AAAA = %v", c)
	}
	if c := g.rrset("c.test.", "SOA"); c == nil || !strings.Contains(js(c["comments"]), "on the SOA") {
		t.Errorf("SOA = %v", c)
	}
	wantA := `[{"content":"192.0.2.1","disabled":false},{"content":"192.0.2.2","disabled":true}]`
	if a := g.rrset("www.c.test.", "A"); a == nil || js(a["records"]) != wantA {
		t.Errorf("A = %v, want records %s", a, wantA)
	}
	if a := call(t, h, "GET", zp+"/c.test.?include_disabled=false", nil).rrset("www.c.test.", "A"); a == nil || js(a["records"]) != `[{"content":"192.0.2.1","disabled":false}]` {
		t.Errorf("include_disabled=false: A = %v", a)
	}

	// Every record disabled: named serves none, the RRset is shown.
	p := call(t, h, "PATCH", zp+"/c.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "www.c.test.", "type": "A", "ttl": 120,
		"records": []any{map[string]any{"content": "192.0.2.1", "disabled": true}}}}})
	if p.status != 204 {
		t.Fatalf("PATCH: %d %s", p.status, p.raw)
	}
	if got := strings.Join(f.served("c.test"), "|"); strings.Contains(got, "www.c.test. A") {
		t.Errorf("named still serves the disabled RRset: %s", got)
	}
	g = call(t, h, "GET", zp+"/c.test.?rrset_name=www.c.test.", nil)
	if a := g.rrset("www.c.test.", "A"); a == nil || js(a["records"]) != `[{"content":"192.0.2.1","disabled":true}]` || a["ttl"] != 120.0 {
		t.Errorf("disabled A = %v", a)
	}
	if n := len(call(t, h, "GET", zp+"/c.test.?rrset_name=www.c.test.&include_disabled=false", nil).body["rrsets"].([]any)); n != 0 {
		t.Errorf("include_disabled=false shows %d RRsets", n)
	}
	// Enabled again.
	call(t, h, "PATCH", zp+"/c.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "www.c.test.", "type": "A", "ttl": 120,
		"records": []any{map[string]any{"content": "192.0.2.1", "disabled": false}}}}})
	if got := strings.Join(f.served("c.test"), "|"); !strings.Contains(got, "www.c.test. A 192.0.2.1") {
		t.Errorf("enabled again, named serves %s", got)
	}

	// Comments only: records unchanged, modified_at set; a later
	// REPLACE without comments keeps them.
	call(t, h, "PATCH", zp+"/c.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "c.test.", "type": "NS",
		"comments": []any{map[string]any{"account": "test1", "content": "blah blah"}}}}})
	call(t, h, "PATCH", zp+"/c.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "c.test.", "type": "NS", "ttl": 3600,
		"records": []any{map[string]any{"content": "ns1.bar.com.", "disabled": false}}}}})
	ns := call(t, h, "GET", zp+"/c.test.", nil).rrset("c.test.", "NS")
	cs, _ := ns["comments"].([]any)
	if len(cs) != 1 || cs[0].(map[string]any)["content"] != "blah blah" || cs[0].(map[string]any)["modified_at"] == 0.0 || js(ns["records"]) != `[{"content":"ns1.bar.com.","disabled":false}]` {
		t.Errorf("NS = %v", ns)
	}

	// Search finds comments.
	s := call(t, h, "GET", Prefix+"/search-data?q=blah*", nil)
	var kinds []string
	for _, it := range s.list {
		kinds = append(kinds, it.(map[string]any)["object_type"].(string)+" "+it.(map[string]any)["type"].(string))
	}
	sort.Strings(kinds)
	if strings.Join(kinds, ",") != "comment AAAA,comment NS" {
		t.Errorf("search blah*: %s", s.raw)
	}

	// A DELETE takes the RRset's comments too.
	call(t, h, "PATCH", zp+"/c.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "DELETE", "name": "c.test.", "type": "AAAA"}}})
	if a := call(t, h, "GET", zp+"/c.test.", nil).rrset("c.test.", "AAAA"); a != nil {
		t.Errorf("AAAA after DELETE = %v", a)
	}
}

// TestSideFileLifecycle: the side file goes with its zone: a delete
// removes it, a zone created again under the name starts with nothing of
// the old one (even when a side file of the old one is left), and a
// PATCH named refuses leaves the side file as it was.
func TestSideFileLifecycle(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	create := map[string]any{"name": "l.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}, "account": "acc"}
	call(t, h, "POST", zp, create)
	path := f.store.SideFilePath("l.test", zonestore.SideKindPowerDNS)
	if _, ok, _ := f.store.ReadSideFile("l.test", zonestore.SideKindPowerDNS); !ok {
		t.Fatalf("no side file at %s", path)
	}
	if d := call(t, h, "DELETE", zp+"/l.test.", nil); d.status != 204 {
		t.Fatalf("DELETE: %d %s", d.status, d.raw)
	}
	if _, ok, _ := f.store.ReadSideFile("l.test", zonestore.SideKindPowerDNS); ok {
		t.Error("the side file outlived its zone")
	}
	// An old zone's side file left behind (a delete made elsewhere).
	call(t, h, "POST", zp, create)
	old, _, _ := f.store.ReadSideFile("l.test", zonestore.SideKindPowerDNS)
	f.mu.Lock()
	delete(f.zones, "l.test")
	f.mu.Unlock()
	time.Sleep(time.Millisecond)
	delete(create, "account")
	call(t, h, "POST", zp, create)
	if err := f.store.ReplaceSideFile("l.test", zonestore.SideKindPowerDNS, old); err != nil {
		t.Fatal(err)
	}
	if g := call(t, h, "GET", zp+"/l.test.", nil); g.body["account"] != "" || g.body["kind"] != "Master" {
		t.Errorf("a new zone shows an old one's data: %s", g.raw)
	}

	// A refused UPDATE: the side file as before (no record kept
	// disabled that named still serves, no comment of the refused
	// change).
	call(t, h, "PATCH", zp+"/l.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "a.l.test.", "type": "A", "ttl": 60,
		"records": []any{map[string]any{"content": "192.0.2.1"}}, "comments": []any{map[string]any{"content": "kept"}}}}})
	before, _, _ := f.store.ReadSideFile("l.test", zonestore.SideKindPowerDNS)
	f.failing = true
	p := call(t, h, "PATCH", zp+"/l.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "a.l.test.", "type": "A", "ttl": 60,
		"records": []any{map[string]any{"content": "192.0.2.1", "disabled": true}}, "comments": []any{map[string]any{"content": "refused"}}}}})
	f.failing = false
	if p.status < 400 {
		t.Fatalf("PATCH with named refusing: %d", p.status)
	}
	after, _, _ := f.store.ReadSideFile("l.test", zonestore.SideKindPowerDNS)
	var b, a zoneData
	_ = json.Unmarshal(before, &b)
	_ = json.Unmarshal(after, &a)
	if js(a.RRsets) != js(b.RRsets) {
		t.Errorf("a refused PATCH changed the side file:\n%s\nwas\n%s", after, before)
	}
}

// TestSideFileMetadata: metadata kinds with no BIND meaning are kept
// (test_create_zone_metadata, _kind, test_retrieve_zone_metadata,
// test_delete_zone_metadata: 204, test_create_external_zone_metadata);
// protected kinds cannot be set (test_create_protected_zone_metadata),
// unknown ones are refused. Before, every kind but four was 422.
func TestSideFileMetadata(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	call(t, h, "POST", zp, map[string]any{"name": "m.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}})
	m := zp + "/m.test./metadata"
	if r := call(t, h, "POST", m, map[string]any{"kind": "AXFR-SOURCE", "metadata": []string{"127.0.0.2"}}); r.status != 201 || js(r.body["metadata"]) != `["127.0.0.2"]` {
		t.Errorf("POST AXFR-SOURCE: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "PUT", m+"/X-MYMETA", map[string]any{"metadata": []string{"My very important message"}}); r.status != 200 || js(r.body["metadata"]) != `["My very important message"]` {
		t.Errorf("PUT X-MYMETA: %d %s", r.status, r.raw)
	}
	l := call(t, h, "GET", m, nil)
	if !strings.Contains(l.raw, `{"type":"Metadata","kind":"AXFR-SOURCE","metadata":["127.0.0.2"]}`) || !strings.Contains(l.raw, "X-MYMETA") {
		t.Errorf("GET metadata: %s", l.raw)
	}
	if r := call(t, h, "DELETE", m+"/AXFR-SOURCE", nil); r.status != 204 {
		t.Errorf("DELETE: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "GET", m+"/AXFR-SOURCE", nil); r.status != 200 || js(r.body["metadata"]) != `[]` {
		t.Errorf("after DELETE: %d %s", r.status, r.raw)
	}
	call(t, h, "PUT", m+"/SOA-EDIT-API", map[string]any{"metadata": []string{"EPOCH"}})
	if g := call(t, h, "GET", zp+"/m.test.", nil); g.body["soa_edit_api"] != "EPOCH" {
		t.Errorf("SOA-EDIT-API metadata is not the zone's soa_edit_api: %v", g.body["soa_edit_api"])
	}
	for _, k := range []string{"NSEC3NARROW", "NSEC3PARAM", "PRESIGNED", "LUA-AXFR-SCRIPT"} {
		if r := call(t, h, "PUT", m+"/"+k, map[string]any{"metadata": []string{"FOO", "BAR"}}); r.status != 422 {
			t.Errorf("PUT %s: %d %s", k, r.status, r.raw)
		}
	}
	if r := call(t, h, "PUT", m+"/NO-SUCH-KIND", map[string]any{"metadata": []string{"1"}}); r.status != 422 || !strings.Contains(r.raw, "Unsupported metadata kind") {
		t.Errorf("PUT NO-SUCH-KIND: %d %s", r.status, r.raw)
	}
}

// TestSplitPatch: what a PATCH sends to named and what it keeps beside
// the zone.
func TestSplitPatch(t *testing.T) {
	rep, ext := ChangeReplace, ChangeExtend
	ttl := uint32(60)
	sets, side, err := splitPatch("z.test", []RRset{
		{Name: "a.z.test.", Type: "a", ChangeType: &rep, TTL: &ttl, Records: []Record{{Content: " 192.0.2.1"}, {Content: "192.0.2.2", Disabled: true}}},
		{Name: "z.test.", Type: "SOA", ChangeType: &rep, Comments: []Comment{{Content: "c"}}},
		{Name: "b.z.test.", Type: "A", ChangeType: &ext, TTL: &ttl, Records: []Record{{Content: "192.0.2.3", Disabled: true}}},
		{Name: "c.z.test.", Type: "TXT", ChangeType: &rep, TTL: &ttl, Records: []Record{}, Comments: []Comment{{Content: "", Account: ""}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 2 || js(sets[0].Records) != `[{"content":"192.0.2.1","disabled":false}]` || sets[1].Name != "c.z.test." || len(sets[1].Records) != 0 || sets[1].Records == nil {
		t.Errorf("for named: %s", js(sets))
	}
	if len(side) != 4 || js(side[0].disabled) != `["192.0.2.2"]` || side[1].comments == nil || side[2].disabled == nil || side[3].comments == nil || len(*side[3].comments) != 0 {
		t.Errorf("side: %+v", side)
	}
	if _, _, err := splitPatch("z.test", []RRset{{Name: "a.z.test.", Type: "A", ChangeType: &rep, TTL: &ttl, Records: []Record{{Content: "192.0.2.1"}, {Content: "192.0.2.1", Disabled: true}}}}); err == nil {
		t.Error("a record given enabled and disabled was taken")
	}
	if _, _, err := splitPatch("z.test", []RRset{{Name: "z.test.", Type: "SOA", ChangeType: &rep, TTL: &ttl, Records: []Record{{Content: "a. b. 1 1 1 1 1", Disabled: true}}}}); err == nil {
		t.Error("a disabled SOA was taken")
	}
	if _, _, err := splitPatch("z.test", []RRset{{Name: "t.z.test.", Type: "TXT", ChangeType: &rep, TTL: &ttl, Records: []Record{{Content: `"TEST\1"`, Disabled: true}}}}); err == nil || !strings.Contains(err.Error(), "Not in expected format (parsed as '\"TEST1\"')") {
		t.Errorf("a disabled TXT record with an incomplete escape: err = %v", err)
	}
}

// TestSideFileCatalog: with zone_api's catalog option every zone is a
// member of its catalog zone, which a zone shows as its catalog, as
// PowerDNS shows its default-catalog-zone (test_create_zone_with_account);
// a catalog given (or "" given) is kept and shown instead. Before, the
// catalog was always "".
func TestSideFileCatalog(t *testing.T) {
	f := newFakeNamed(t)
	f.catalog = "default-catalog.example.com"
	h := fakeAPI(f)
	r := call(t, h, "POST", zp, map[string]any{"name": "a.test.", "kind": "Master", "nameservers": []string{"ns1.example.com."}, "account": "x"})
	if r.body["catalog"] != "default-catalog.example.com." {
		t.Errorf("catalog = %v, want zone_api's catalog", r.body["catalog"])
	}
	r = call(t, h, "POST", zp, map[string]any{"name": "b.test.", "kind": "Master", "nameservers": []string{"ns1.example.com."}, "catalog": "catalog.invalid."})
	if r.body["catalog"] != "catalog.invalid." {
		t.Errorf("catalog given = %v", r.body["catalog"])
	}
	call(t, h, "PUT", zp+"/b.test.", map[string]any{"catalog": ""})
	if g := call(t, h, "GET", zp+"/b.test.", nil); g.body["catalog"] != "" {
		t.Errorf("catalog after PUT \"\" = %v", g.body["catalog"])
	}
	l := call(t, h, "GET", zp, nil)
	if len(l.list) != 2 || l.list[0].(map[string]any)["catalog"] != "default-catalog.example.com." || l.list[1].(map[string]any)["catalog"] != "" {
		t.Errorf("list = %s", l.raw)
	}
}

// TestSideFilePutRRsets: a PUT of rrsets (4.9+) keeps what it gives of
// comments and disabled records and nothing of the RRsets before; named
// gets only the enabled records; a PUT named refuses leaves the side file
// as it was. Before, comments and disabled records in a PUT were 422.
func TestSideFilePutRRsets(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	call(t, h, "POST", zp, map[string]any{"name": "p.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}, "rrsets": []any{
		map[string]any{"name": "old.p.test.", "type": "A", "ttl": 60, "records": []any{map[string]any{"content": "192.0.2.9", "disabled": true}}},
	}})
	soa := map[string]any{"name": "p.test.", "type": "SOA", "ttl": 3600, "records": []any{map[string]any{"content": "a.misconfigured.dns.server.invalid. hostmaster.p.test. 1 10800 3600 604800 3600"}}}
	put := map[string]any{"rrsets": []any{soa,
		map[string]any{"name": "p.test.", "type": "NS", "ttl": 3600, "records": []any{map[string]any{"content": "ns1.example.com."}}},
		map[string]any{"name": "www.p.test.", "type": "A", "ttl": 60, "records": []any{map[string]any{"content": "192.0.2.1"}, map[string]any{"content": "192.0.2.2", "disabled": true}},
			"comments": []any{map[string]any{"account": "a", "content": "put"}}},
	}}
	if r := call(t, h, "PUT", zp+"/p.test.", put); r.status != 204 {
		t.Fatalf("PUT: %d %s", r.status, r.raw)
	}
	if got := strings.Join(f.served("p.test"), "|"); strings.Contains(got, "192.0.2.2") || !strings.Contains(got, "www.p.test. A 192.0.2.1") {
		t.Errorf("named serves %s", got)
	}
	g := call(t, h, "GET", zp+"/p.test.", nil)
	if a := g.rrset("www.p.test.", "A"); a == nil || js(a["records"]) != `[{"content":"192.0.2.1","disabled":false},{"content":"192.0.2.2","disabled":true}]` || !strings.Contains(js(a["comments"]), `"put"`) {
		t.Errorf("www A = %v", a)
	}
	if g.rrset("old.p.test.", "A") != nil {
		t.Errorf("the disabled RRset the PUT did not give is still shown: %s", g.raw)
	}
	before, _, _ := f.store.ReadSideFile("p.test", zonestore.SideKindPowerDNS)
	f.failing = true
	put["rrsets"] = []any{soa, map[string]any{"name": "p.test.", "type": "NS", "ttl": 3600, "records": []any{map[string]any{"content": "ns1.example.com."}}},
		map[string]any{"name": "x.p.test.", "type": "A", "ttl": 60, "records": []any{map[string]any{"content": "192.0.2.3", "disabled": true}}}}
	r := call(t, h, "PUT", zp+"/p.test.", put)
	f.failing = false
	after, _, _ := f.store.ReadSideFile("p.test", zonestore.SideKindPowerDNS)
	if r.status < 400 || string(after) != string(before) {
		t.Errorf("a refused PUT: %d, side file %s, was %s", r.status, after, before)
	}
}

// TestAutoprimaries: named has no autoprimaries (supermasters): the list
// is empty, adding one is 422 with why, deleting one is 404. Before, the
// routes answered 404.
func TestAutoprimaries(t *testing.T) {
	h := fakeAPI(newFakeNamed(t))
	if r := call(t, h, "GET", Prefix+"/autoprimaries", nil); r.status != 200 || r.raw != "[]\n" {
		t.Errorf("GET: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "POST", Prefix+"/autoprimaries", map[string]any{"ip": "192.0.2.1", "nameserver": "ns.example.com."}); r.status != 422 || !strings.Contains(r.raw, "catalog zone") {
		t.Errorf("POST: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "DELETE", Prefix+"/autoprimaries/192.0.2.1/ns.example.com.", nil); r.status != 404 || !strings.Contains(r.raw, "192.0.2.1/ns.example.com.") {
		t.Errorf("DELETE: %d %s", r.status, r.raw)
	}
}

// TestSideFileUpdateOutcomeUnknown: a PATCH that disables a record,
// whose UPDATE named applied without an answer (504, "nothing was
// rolled back"), keeps the record in the side file: GET shows it
// disabled, not lost. Before, the side file was put back as it was
// before the PATCH, as for an UPDATE named refused: the record was
// neither served nor kept.
func TestSideFileUpdateOutcomeUnknown(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	if r := call(t, h, "POST", zp, map[string]any{"name": "u.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}, "rrsets": []any{
		map[string]any{"name": "www.u.test.", "type": "A", "ttl": 60, "records": []any{map[string]any{"content": "192.0.2.1"}, map[string]any{"content": "192.0.2.2"}}},
	}}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	f.lostReply = true
	p := call(t, h, "PATCH", zp+"/u.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "www.u.test.", "type": "A", "ttl": 60,
		"records": []any{map[string]any{"content": "192.0.2.1"}, map[string]any{"content": "192.0.2.2", "disabled": true}}}}})
	f.lostReply = false
	if p.status != http.StatusGatewayTimeout {
		t.Fatalf("PATCH whose UPDATE's reply was lost: %d %s", p.status, p.raw)
	}
	if got := strings.Join(f.served("u.test"), "|"); strings.Contains(got, "192.0.2.2") {
		t.Fatalf("named serves %s: the fake did not apply the UPDATE", got)
	}
	a := call(t, h, "GET", zp+"/u.test.", nil).rrset("www.u.test.", "A")
	if want := `[{"content":"192.0.2.1","disabled":false},{"content":"192.0.2.2","disabled":true}]`; a == nil || js(a["records"]) != want {
		t.Errorf("www A after the unknown outcome = %v, want records %s", a, want)
	}
}

// TestSideFileBounded: a change that would make the zone's side file
// larger than a read takes back (zonemodel.MaxSideFile, which the store
// refuses with ErrSideFileTooLarge; here the store's refusal at a small
// bound) is refused with 422 and changes nothing. Before, the file was
// written, and every later PowerDNS read and change of the zone failed
// (found in the security review of 2026-11-28).
func TestSideFileBounded(t *testing.T) {
	f := newFakeNamed(t)
	f.sides = boundedSides{f.store, 4000}
	h := fakeAPI(f)
	call(t, h, "POST", zp, map[string]any{"name": "b.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}})
	m := zp + "/b.test./metadata"
	if r := call(t, h, "PUT", m+"/X-SMALL", map[string]any{"metadata": []string{"kept"}}); r.status != 200 {
		t.Fatalf("PUT X-SMALL: %d %s", r.status, r.raw)
	}
	big := strings.Repeat("x", 5000)
	if r := call(t, h, "PUT", m+"/X-BIG", map[string]any{"metadata": []string{big}}); r.status != 422 || !strings.Contains(r.raw, "over the limit") {
		t.Errorf("PUT X-BIG: %d %s, want 422", r.status, r.raw)
	}
	if r := call(t, h, "GET", m+"/X-SMALL", nil); r.status != 200 || js(r.body["metadata"]) != `["kept"]` {
		t.Errorf("GET X-SMALL after the refusal: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "GET", m+"/X-BIG", nil); r.status == 200 && strings.Contains(r.raw, big) {
		t.Errorf("X-BIG kept: %d", r.status)
	}
}

// boundedSides is the store refusing side files over max bytes as the
// real store refuses those over zonemodel.MaxSideFile.
type boundedSides struct {
	*zonestore.Store
	max int
}

func (b boundedSides) SideFileLimit() int { return b.max }

func (b boundedSides) ReplaceSideFile(zone, kind string, data []byte) error {
	if len(data) > b.max {
		return fmt.Errorf("writing side file: %w", zonemodel.ErrSideFileTooLarge)
	}
	return b.Store.ReplaceSideFile(zone, kind, data)
}

// TestSideFileBoundedPatch: a PATCH whose comments would make the side
// file too large is refused before named is changed (its records stay
// as they were), not after the UPDATE.
func TestSideFileBoundedPatch(t *testing.T) {
	f := newFakeNamed(t)
	f.sides = boundedSides{f.store, 4000}
	h := fakeAPI(f)
	if r := call(t, h, "POST", zp, map[string]any{"name": "c.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}, "rrsets": []any{
		map[string]any{"name": "www.c.test.", "type": "A", "ttl": 60, "records": []any{map[string]any{"content": "192.0.2.1"}}},
	}}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	p := call(t, h, "PATCH", zp+"/c.test.", map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": "www.c.test.", "type": "A", "ttl": 60,
		"records":  []any{map[string]any{"content": "192.0.2.9"}},
		"comments": []any{map[string]any{"content": strings.Repeat("c", 5000), "account": "a"}}}}})
	if p.status != 422 || !strings.Contains(p.raw, "over the limit") {
		t.Fatalf("PATCH with a comment too large: %d %s, want 422", p.status, p.raw)
	}
	if got := strings.Join(f.served("c.test"), "|"); !strings.Contains(got, "192.0.2.1") || strings.Contains(got, "192.0.2.9") {
		t.Errorf("named serves %s after the refused PATCH", got)
	}
}
