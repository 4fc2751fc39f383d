package frontend

import "context"

// ZoneAPIService is the zone service of one view as the zone API
// (package rest) sees it: every interface below, each with its contract
// in its doc comment. frontend/adapter's REST implements it over
// *zoneservice.Service, whose record concern (zoneservice.Records) does
// the record operations.
type ZoneAPIService interface {
	ViewNamer
	UpdateKeys

	// Zones.
	ZoneStateReader
	CachedZoneReader
	ZoneDetailer
	AllZonesLister
	ZoneCreator
	ZoneRemover
	ZoneAdopter
	SettingsModifier
	ZoneReloader
	ZoneFreezer
	ZoneThawer
	ZoneRetransferrer
	ZoneNotifier
	IdempotencyKeeper

	// Imports.
	SourceImporter
	ZoneCopier
	ImportPreviewer
	CopyPreviewer

	// Records.
	RecordAdder
	RecordRemover
	RecordReplacer
	ChangeApplier
	RecordPager
	ZoneFileReader

	// Server, catalog, readiness.
	ServerStatusReader
	NotLoadedLister
	HistoryChecker
	CatalogReader
	CatalogReconciler
}

// ZoneAPIServer is the zone services of the configured views as the zone
// API sees them (frontend/adapter.REST over *zoneservice.Server).
type ZoneAPIServer interface {
	// Service returns the zone service of view: for "" (and the default
	// view's name) the default view's, or the one service without views;
	// nil for a view that is not configured. No I/O.
	Service(view string) ZoneAPIService
	// Start runs the start-up reconciles before a front end serves a
	// request that reaches zones, and returns Service(view): once per
	// zone directory and process, the default view's zones with named
	// and the catalog with the index, and, for another view, that view's
	// zones; each is tried again at later calls until it succeeded (at
	// most every so often), on a context of its own. It is called only
	// once the request is authorised completely, so that nothing an
	// unauthorised request does reaches named or the disk. It never
	// fails.
	Start(ctx context.Context, view string) ZoneAPIService
	// Reconcile reconciles every view.
	Reconciler
	// ListZones lists the managed zones of one view or of every view.
	ManagedLister
}
