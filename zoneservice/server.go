package zoneservice

import (
	"context"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// Server is the zone service of one configuration of the zone API, below
// its front ends (the REST API, the PowerDNS-compatible API, the events
// endpoints), which all reach zones through it: it owns the Service of
// each view of named the configuration addresses, the start-up and
// catalog reconciles (Start: started once, from here, whichever front end
// serves the first request), the restart watch of every view
// (WatchRestarts), the on-demand reconcile of every view (Reconcile), the
// list of the managed zones across views and its paging, scoped
// (ListZones), and where named's NOTIFYs and the history's catch-up go
// (Notices, CatchUpOnce). The state that must outlive a configuration (a
// zone directory's, see Directory) is not the Server's: the front end
// that builds it keeps that across configurations. It knows nothing of
// HTTP or Caddy.
type Server struct {
	// root is the service of the zones addressed without a view: the
	// default view's, or, without views, the only one. It has the
	// catalog.
	root *Service
	// views are the services of the configured views other than the
	// default, by name.
	views map[string]*Service
	// names are every configured view, in configuration order.
	names []string
	// control is the control-channel client every service's commands go
	// through (each names its view).
	control *rndc.Client
}

// ViewParts are a view's own parts of a Server (the root's too): its
// name ("" for no view), its zone directory and the store of it, the
// updater whose DNS messages reach the view, and the name of the key its
// zones accept dynamic updates from ("" none).
type ViewParts struct {
	Name      string
	Directory *Directory
	Store     *zonestore.Store
	Updater   *dnsupdate.Updater
	UpdateKey string
}

// ServerConfig is what NewServer builds a Server from: the parts of the
// root and of every other view, and the settings their services share.
type ServerConfig struct {
	// Root is the default view's parts (Name: the default view, "" when
	// none is); Views are the other configured views', and Names every
	// configured view's name, in configuration order.
	Root  ViewParts
	Views []ViewParts
	Names []string

	// Control is named's control channel: each view's service's commands
	// name its view (rndc.Client.InView). Without it (and without the
	// views' stores) the services do record operations only, as the
	// external-dns webhook's. WatchStatus, if set, is how the
	// restart watch asks named for its status (Service.WatchStatus).
	Control     *rndc.Client
	WatchStatus func(ctx context.Context) (*rndc.ServerStatus, error)

	// Catalog, if set, makes the root's catalog (Service.Catalog) from
	// its parts; CatalogNotify are its secondaries (Service.CatalogNotify).
	Catalog       func(store *zonestore.Store, control catalog.Control, records *dnsupdate.Updater, updateKey string) *catalog.Catalog
	CatalogNotify []string

	// The settings every view's service shares (see Service).
	SerialMethod dnsupdate.SerialMethod
	Checker      *zonecheck.Checker
	Timeout      time.Duration
	KeyDirs      []string
	Logger       *zap.Logger
	// ZoneCacheMaxAge is every service's (Service.ZoneCacheMaxAge: 0
	// the default, negative no cache).
	ZoneCacheMaxAge time.Duration
	// History is the one change history of every view (its entries name
	// the view).
	History *history.Log
	// Inventory, if set, is named's list of every zone, of named and not
	// of a view: every view's service has it, and the root lists every
	// zone with each view's index (Service.ViewIndex).
	Inventory *inventory.Inventory
}

// NewServer builds the Server of cfg: a Service for the root and for
// each other view.
func NewServer(cfg ServerConfig) *Server {
	s := &Server{names: slices.Clone(cfg.Names), control: cfg.Control}
	s.root = cfg.service(cfg.Root, true)
	if len(cfg.Views) > 0 {
		s.views = map[string]*Service{}
		for _, v := range cfg.Views {
			s.views[v.Name] = cfg.service(v, false)
		}
		s.root.ViewIndex = func(view string) (Index, error) {
			if vs, ok := s.views[view]; ok {
				return vs.Store, nil
			}
			return nil, nil
		}
	}
	if inv := cfg.Inventory; inv != nil {
		// A zone of an index is one the API created or adopted: of the
		// new-zone database, not asked (the default view's zones, the
		// configured default's or named's _default, are those of the
		// root's index).
		inv.Indexed = func(name, view string) bool {
			if vs, ok := s.views[view]; ok && indexKnows(vs.Store, name) {
				return true
			}
			if view != inventory.DefaultView && view != s.root.View && len(s.views) > 0 {
				return false
			}
			return indexKnows(s.root.Store, name)
		}
	}
	return s
}

// indexKnows reports whether the index has the zone, as last read when
// it can tell that (zonestore.Store.Known: no stat per zone when the
// inventory classifies 100,000 of them), else by Get.
func indexKnows(x Index, name string) bool {
	if k, ok := x.(interface{ Known(string) bool }); ok {
		return k.Known(name)
	}
	_, found, _ := x.Get(name)
	return found
}

// service builds the service of a view's parts, with the catalog when
// withCatalog is set (the root's).
func (cfg *ServerConfig) service(v ViewParts, withCatalog bool) *Service {
	svc := &Service{
		Directory:    v.Directory,
		View:         v.Name,
		Updater:      v.Updater,
		SerialMethod: cfg.SerialMethod,
		UpdateKey:    v.UpdateKey,
		Checker:      cfg.Checker,
		Timeout:      cfg.Timeout,
		SendWithin:   cfg.Timeout,
		KeyDirs:      cfg.KeyDirs,
		Logger:       cfg.Logger,
		WatchStatus:  cfg.WatchStatus,
		History:      cfg.History,
		Inventory:    cfg.Inventory,

		ZoneCacheMaxAge: cfg.ZoneCacheMaxAge,
	}
	// Without a store or a control channel (the external-dns webhook's
	// server: records only) the service's fields stay nil interfaces.
	if v.Store != nil {
		svc.Store = v.Store
	}
	if cfg.Control == nil {
		return svc
	}
	// A ViewClient of view "" names no view: exactly the client's own
	// commands.
	control := cfg.Control.InView(v.Name)
	svc.Control, svc.Expiry = control, cfg.Control.Expiry
	if withCatalog && cfg.Catalog != nil {
		svc.Catalog, svc.CatalogNotify = cfg.Catalog(v.Store, control, v.Updater, v.UpdateKey), cfg.CatalogNotify
	}
	return svc
}

// Root is the service of the zones addressed without a view (the default
// view's, or without views the only one), which has the catalog.
func (s *Server) Root() *Service { return s.root }

// Service returns the service of the zones of view: the root for ""
// and for its own view (the default view), a configured view's own
// service, nil for a view not configured.
func (s *Server) Service(view string) *Service {
	if view == "" || view == s.root.View {
		return s.root
	}
	return s.views[view]
}

// Others are the services of the views other than the root's, in view
// name order.
func (s *Server) Others() []*Service {
	names := make([]string, 0, len(s.views))
	for name := range s.views {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]*Service, len(names))
	for i, name := range names {
		out[i] = s.views[name]
	}
	return out
}

// all are the root's service and each other view's, in configuration
// order.
func (s *Server) all() []*Service {
	out := []*Service{s.root}
	for _, name := range s.names {
		if vs := s.views[name]; vs != nil {
			out = append(out, vs)
		}
	}
	return out
}

// Start runs the start-up reconciles before a front end serves a request
// that reaches zones, and returns the service of view (Service; nil for
// a view not configured): once per zone directory and process, the
// root's zones are reconciled with named (Service.ReconcileAtStart) and
// the catalog with the index (Service.ReconcileCatalogAtStart), and, for
// another view, that view's zones. Each is tried again at later calls
// until it succeeded (at most every RetryEvery). Every front end calls
// it, and only once the request is authorised completely, so that
// nothing an unauthorised request does reaches named or the disk. The
// reconciles run on a context of their own (ctx's values, not its end).
func (s *Server) Start(ctx context.Context, view string) *Service {
	ctx = context.WithoutCancel(ctx)
	s.root.ReconcileAtStart(ctx)
	s.root.ReconcileCatalogAtStart(ctx)
	svc := s.Service(view)
	if svc != nil && svc != s.root {
		svc.ReconcileAtStart(ctx)
	}
	return svc
}

// WatchRestarts runs the restart watch (Service.WatchRestarts) of every
// view until ctx ends: each view's zones are healed by a watch of their
// own (their index and intents are the view's).
func (s *Server) WatchRestarts(ctx context.Context, interval time.Duration) {
	for _, vs := range s.views {
		go vs.WatchRestarts(ctx, interval)
	}
	s.root.WatchRestarts(ctx, interval)
}

// Reconcile reconciles every view (Service.Reconcile), logging each
// view's report, and returns one report whose items name their view. It
// stops at the first view that fails.
func (s *Server) Reconcile(ctx context.Context, fix bool) (*Report, error) {
	rep := &Report{Fixed: []Fix{}, Pending: []Fix{}, Problems: []Fix{}}
	for _, vs := range s.all() {
		vrep, err := vs.Reconcile(ctx, fix)
		vs.LogReconcile("reconcile", vrep, err)
		if err != nil {
			return nil, err
		}
		for _, l := range []struct{ dst, src *[]Fix }{{&rep.Fixed, &vrep.Fixed}, {&rep.Pending, &vrep.Pending}, {&rep.Problems, &vrep.Problems}} {
			for _, f := range *l.src {
				f.View = vs.View
				*l.dst = append(*l.dst, f)
			}
		}
		rep.Checked += vrep.Checked
	}
	return rep, nil
}

// Scope is what an identity may see of the zones
// (zonemodel.ZoneScope; *auth.Grant implements it, and a nil *auth.Grant,
// or a nil Scope, allows everything).
type Scope = zonemodel.ZoneScope

// allZones is the Scope that allows every zone.
type allZones struct{}

func (allZones) AllowsZoneIn(string, string) bool { return true }
func (allZones) RestrictsZones() bool             { return false }

// ManagedZone is a managed zone in a list (zonemodel.ManagedZone).
type ManagedZone = zonemodel.ManagedZone

// managed is the list item of index entry e of view.
func managed(e zonestore.Entry, view string) ManagedZone {
	return ManagedZone{Name: e.Name, Type: e.Type, Created: e.Created, View: view}
}

// ListZones lists the managed zones scope allows, in name order (then
// view), optionally of one type, one page at a time: limit zones (0:
// all) after cursor, with the cursor of the next page ("" at the end)
// and the total the scope allows. Without views, they are the root's
// zones, their cursor a zone name. With views, they are those of view,
// or with view "" of every view (the root's first: the default view's,
// or the zones created without one), each with its view, and their
// cursor is "<name>[@<view>]" (no zone name holds '@'). A store that
// cannot be read is returned as its error (ErrStorage is not added).
func (s *Server) ListZones(scope Scope, view, typ, cursor string, limit int) (page []ManagedZone, next string, total int, err error) {
	if scope == nil {
		scope = allZones{}
	}
	if len(s.names) == 0 {
		return listInScope(s.root, scope, typ, cursor, limit)
	}
	services := s.all()
	if view != "" {
		services = nil
		if vs := s.Service(view); vs != nil {
			services = []*Service{vs}
		}
	}
	var all []ManagedZone
	for _, vs := range services {
		es, _, _, err := vs.Store.List(typ, "", 0)
		if err != nil {
			return nil, "", 0, err
		}
		for _, e := range es {
			if scope.AllowsZoneIn(e.Name, vs.View) {
				all = append(all, managed(e, vs.View))
			}
		}
	}
	slices.SortFunc(all, func(x, y ManagedZone) int {
		switch {
		case before(x, y.Name, y.View):
			return -1
		case before(y, x.Name, x.View):
			return 1
		}
		return 0
	})
	cName, cView, _ := strings.Cut(cursor, "@")
	page = []ManagedZone{}
	for _, e := range all {
		if cursor != "" && !before(ManagedZone{Name: cName, View: cView}, e.Name, e.View) {
			continue
		}
		if limit > 0 && len(page) == limit {
			next = listCursor(page[len(page)-1])
			break
		}
		page = append(page, e)
	}
	return page, next, len(all), nil
}

// listInScope lists the zones of svc's index as Store.List does, keeping
// only those scope allows. With a scope that restricts zones, the whole
// index is read and filtered, so pages, cursors and totals count only
// allowed zones.
func listInScope(svc *Service, scope Scope, typ, cursor string, limit int) ([]ManagedZone, string, int, error) {
	wrap := func(es []zonestore.Entry) []ManagedZone {
		out := make([]ManagedZone, len(es))
		for i, e := range es {
			out[i] = managed(e, "")
		}
		return out
	}
	if !scope.RestrictsZones() {
		es, next, total, err := svc.Store.List(typ, cursor, limit)
		return wrap(es), next, total, err
	}
	all, _, _, err := svc.Store.List(typ, "", 0)
	if err != nil {
		return nil, "", 0, err
	}
	var allowed []zonestore.Entry
	for _, e := range all {
		if scope.AllowsZoneIn(e.Name, "") {
			allowed = append(allowed, e)
		}
	}
	page := []zonestore.Entry{}
	next := ""
	for _, e := range allowed {
		if cursor != "" && e.Name <= cursor {
			continue
		}
		if limit > 0 && len(page) == limit {
			next = page[len(page)-1].Name
			break
		}
		page = append(page, e)
	}
	return wrap(page), next, len(allowed), nil
}

// listCursor is a list cursor: the zone's name, and "@<view>" when it
// has a view.
func listCursor(e ManagedZone) string {
	if e.View == "" {
		return e.Name
	}
	return e.Name + "@" + e.View
}

// before orders zones by name, then view.
func before(e ManagedZone, name, view string) bool {
	return e.Name < name || e.Name == name && e.View < view
}

// noticeTargets are the services named's NOTIFYs go to: def, which gets
// every one (the root: the default view's, or the only one without
// views; nil when views are configured and none is the default, since no
// zone is then addressed without a view, and a view-less service would
// record another view's zone under no view), and others, the other
// views' services, each of which gets those of the zones it follows
// (ViewNotices).
func (s *Server) noticeTargets() (def *Service, others []*Service) {
	others = s.Others()
	if len(others) > 0 && s.root.View == "" {
		return nil, others
	}
	return s.root, others
}

// Notices returns the receiver of named's NOTIFYs (a zone name each)
// until ctx ends: the root's (Service.Notices), and with views every
// view's that follows the zone (ViewNotices: a NOTIFY names no view).
func (s *Server) Notices(ctx context.Context) (notice func(zone string)) {
	def, others := s.noticeTargets()
	if len(others) == 0 {
		return def.Notices(ctx)
	}
	return ViewNotices(ctx, def, others)
}

// CatchUpOnce runs CatchUp for the zones of every view, once per history
// log and process (history.Log.FirstCatchUp): the root's and each other
// view's, whose services share the one history. Without a history it
// does nothing.
func (s *Server) CatchUpOnce(ctx context.Context) {
	if s.root.History == nil || !s.root.History.FirstCatchUp() {
		return
	}
	s.root.CatchUp(ctx)
	for _, vs := range s.Others() {
		vs.CatchUp(ctx)
	}
}

// Close ends the inventory's background refresh and closes the idle
// control-channel connections (at the end of the configuration).
func (s *Server) Close() {
	s.root.Inventory.Stop()
	if s.control != nil {
		s.control.Close()
	}
}
