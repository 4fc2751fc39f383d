package zoneservice

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

const catZone = `$TTL 0
@ IN SOA invalid. invalid. 1 60 30 604800 0
@ IN NS invalid.
version IN TXT "2"
` + "0123456789abcdef0123456789abcdef01234567.zones IN PTR gone.test.\n"

// catalogRig is an opsRig whose service keeps the catalog cat.test,
// served by the fake DNS port.
func catalogRig(t *testing.T) *opsRig {
	r := newOpsRig(t)
	d := dnstest.NewServer(t, map[string]string{"cat.test": catZone, "rec.test": recZone})
	r.dns = d
	u := r.svc.Updater
	c, err := newTestClient(d.Addr)
	if err != nil {
		t.Fatal(err)
	}
	r.svc.Updater = c
	u.Close()
	t.Cleanup(c.Close)
	r.ans.set("showzone cat.test", rndc.Response{Text: `zone "cat.test" { type primary; file "/z/cat.test.catalog.db"; };`})
	r.svc.Catalog = &catalog.Catalog{Zone: "cat.test", Dir: r.store.Dir(), UpdateKey: "zoneapi-update",
		DNS: c.Client(), Control: r.svc.Control.(*rndc.Client), IsNotFound: rndc.IsNotFound, IsExists: rndc.IsAlreadyExists}
	return r
}

func TestCatalog(t *testing.T) {
	r := catalogRig(t)
	ctx := context.Background()
	if err := r.store.Put(zonestore.Entry{Name: "a.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	members, err := r.svc.CatalogMembers(ctx)
	if err != nil || len(members) != 1 || members[0].Zone != "gone.test" {
		t.Fatalf("CatalogMembers = %+v, %v", members, err)
	}
	rep, err := r.svc.ReconcileCatalog(ctx, false)
	if err != nil || len(rep.Missing) != 1 || rep.Missing[0] != "a.test" || len(rep.Stray) != 1 {
		t.Fatalf("drift = %+v, %v", rep, err)
	}
	// At start: fixed once, then not again.
	r.svc.ReconcileCatalogAtStart(ctx)
	members, _ = r.svc.CatalogMembers(ctx)
	if len(members) != 1 || members[0].Zone != "a.test" {
		t.Fatalf("after the start-up reconcile: %+v", members)
	}
	if !r.svc.catalogStart.done.Load() {
		t.Error("the catalog's start-up reconcile is not marked done")
	}

	// The catalog zone itself cannot be deleted.
	if !r.svc.IsCatalogZone("CAT.test.") || r.svc.IsCatalogZone("a.test") {
		t.Error("IsCatalogZone")
	}
	kind(t, func() error { _, err := r.svc.Delete(ctx, "cat.test", DeleteOptions{}); return err }(), ErrCatalogZone)

	// The catalog's step of a create and a delete (the service's hook).
	if err := r.svc.zoneCreated(ctx, "b.test", "primary"); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.zoneDeleted(ctx, "a.test"); err != nil {
		t.Fatal(err)
	}
	members, _ = r.svc.CatalogMembers(ctx)
	if len(members) != 1 || members[0].Zone != "b.test" {
		t.Fatalf("after the hook: %+v", members)
	}

	// The index cannot be read, or named cannot be: typed errors.
	broken := &Service{Store: failingList{r.store}, Catalog: r.svc.Catalog}
	kind(t, func() error { _, err := broken.ReconcileCatalog(ctx, true); return err }(), ErrStorage)
	r.dns.Refuse("cat.test", 5)
	r.svc.Catalog.DNS = closedDNS{}
	kind(t, func() error { _, err := r.svc.CatalogMembers(ctx); return err }(), ErrControl)
	kind(t, func() error { _, err := r.svc.ReconcileCatalog(ctx, true); return err }(), ErrControl)
}

func TestNoCatalog(t *testing.T) {
	s := &Service{}
	ctx := context.Background()
	kind(t, func() error { _, err := s.CatalogMembers(ctx); return err }(), ErrNoCatalog)
	kind(t, func() error { _, err := s.ReconcileCatalog(ctx, false); return err }(), ErrNoCatalog)
	s.ReconcileCatalogAtStart(ctx) // nothing to do
	if s.IsCatalogZone("x.test") {
		t.Error("a zone is the catalog without one")
	}
}

// TestRetryGate: an operation that failed is tried again only after
// RetryEvery; one that succeeded never again.
func TestRetryGate(t *testing.T) {
	var g retryGate
	runs := 0
	fail := func() error { runs++; return errors.New("named down") }
	g.run(fail)
	g.run(fail)
	if runs != 1 {
		t.Fatalf("retried within RetryEvery: %d runs", runs)
	}
	g.last = time.Now().Add(-RetryEvery - time.Second)
	g.run(func() error { runs++; return nil })
	g.run(fail)
	if runs != 2 || !g.done.Load() {
		t.Fatalf("runs = %d, done = %v", runs, g.done.Load())
	}
}

// TestReconcileAtStart runs once per zone directory, whichever service
// of it asks.
func TestReconcileAtStart(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	r.svc.Directory = NewDirectory(r.store.Dir(), nil)
	r.svc.ReconcileAtStart(ctx)
	if !r.svc.Directory.startup.done.Load() {
		t.Fatal("the start-up reconcile did not run to success")
	}
	other := &Service{Store: r.store, Control: r.svc.Control, Directory: r.svc.Directory}
	other.ReconcileAtStart(ctx) // the same directory: nothing runs
	rep, err := r.svc.Reconcile(ctx, true)
	r.svc.LogReconcile("test", rep, err)
	r.svc.LogReconcile("test", &Report{Fixed: []Fix{{Action: "x"}}}, nil)
	r.svc.LogReconcile("test", &Report{}, errors.New("failed"))
}

// newTestClient is an updater of the fake DNS port at addr, signing with
// its key.
func newTestClient(addr string) (*dnsupdate.Updater, error) {
	c, err := dnsupdate.NewClient(addr, &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: dns.HmacSHA256, Secret: dnstest.TSIGSecret}, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return dnsupdate.NewUpdater(c), nil
}

// closedDNS is a catalog DNS that cannot reach named.
type closedDNS struct{}

func (closedDNS) Update(context.Context, string, *dns.Msg) error {
	return errors.New("connection refused")
}
func (closedDNS) Transfer(context.Context, string) ([]dns.RR, error) {
	return nil, errors.New("connection refused")
}
