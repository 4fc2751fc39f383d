package client

import "github.com/zoneapi/caddy-zoneapi/apitypes"

// The API's request and response bodies are package apitypes' types, which
// the server decodes and encodes too; the names here are aliases, so
// client.Record and apitypes.Record are one type.
type (
	// Record is one record to add (POST /zones/{name}/records).
	Record = apitypes.Record
	// RemoveRecord is the body of DELETE /zones/{name}/records.
	RemoveRecord = apitypes.RemoveRecord
	// UpdateRecord is the body of PUT /zones/{name}/records.
	UpdateRecord = apitypes.UpdateRecord
	// Change is one change of a batch (PATCH /zones/{name}/records).
	Change = apitypes.Change
	// RecordChange is the answer of a single-record change.
	RecordChange = apitypes.RecordChange
	// RecordChangeDetails echo a single-record change.
	RecordChangeDetails = apitypes.RecordChangeDetails
	// StoredRecord is a record as named stores it.
	StoredRecord = apitypes.StoredRecord
	// BatchResult is the answer of PATCH /zones/{name}/records.
	BatchResult = apitypes.BatchResult
	// RRset is the set of records of one name and type.
	RRset = apitypes.RRset
	// RecordPage is one page of GET /zones/{name}/records.
	RecordPage = apitypes.RecordPage
	// ZoneInfo is a zone's state, from rndc zonestatus.
	ZoneInfo = apitypes.ZoneInfo
	// ZoneResponse is the answer of zone commands.
	ZoneResponse = apitypes.ZoneResponse
	// NotifyResponse is the answer of POST /zones/{name}/notify.
	NotifyResponse = apitypes.NotifyResponse
	// NotifiedServer is one server a NOTIFY went to.
	NotifiedServer = apitypes.NotifiedServer
	// ZoneEntry is a managed zone in a list.
	ZoneEntry = apitypes.ZoneEntry
	// ImportZone is the JSON body of POST /zones/{name}/import.
	ImportZone = apitypes.ImportZone
	// ImportAXFR is a server to import a zone from by AXFR.
	ImportAXFR = apitypes.ImportAXFR
	// TSIGKey is a TSIG key (name, algorithm, base64 secret).
	TSIGKey = apitypes.TSIGKey
	// ImportResult is the answer of an import.
	ImportResult = apitypes.ImportResult
	// ImportPreview is the answer of an import's dry run.
	ImportPreview = apitypes.ImportPreview
	// ZonePage is one page of GET /zones.
	ZonePage = apitypes.ZonePage
	// AdoptResponse is the answer of an adoption (AdoptZone).
	AdoptResponse = apitypes.AdoptResponse
	// ZoneCapabilities are what the API can do with a zone (ZoneInfo).
	ZoneCapabilities = apitypes.ZoneCapabilities
	// CreateZone is the body of POST /zones (bindcar's).
	CreateZone = apitypes.CreateZone
	// ZoneConfig is a zone's content and options.
	ZoneConfig = apitypes.ZoneConfig
	// SOA is a zone's SOA data.
	SOA = apitypes.SOA
	// ZoneSettings is a zone's configuration as showzone reports it.
	ZoneSettings = apitypes.ZoneSettings
	// ModifyZone is the body of PATCH /zones/{name}.
	ModifyZone = apitypes.ModifyZone
	// ModifyZoneResponse is the answer of PATCH /zones/{name}.
	ModifyZoneResponse = apitypes.ModifyZoneResponse
	// Health is the answer of GET /health.
	Health = apitypes.Health
	// Readiness is the answer of GET /ready.
	Readiness = apitypes.Readiness
	// ServerStatus is the answer of GET /server/status.
	ServerStatus = apitypes.ServerStatus
)

// Batch change operations (Change.Op).
const (
	// OpAdd adds one record (Value).
	OpAdd = apitypes.OpAdd
	// OpRemove removes one record (Value), if present.
	OpRemove = apitypes.OpRemove
	// OpReplace makes the RRset of Name and Type exactly Values.
	OpReplace = apitypes.OpReplace
	// OpDelete deletes the RRset of Name and Type.
	OpDelete = apitypes.OpDelete
)

// ListRecordsOptions select and page GET /zones/{name}/records.
type ListRecordsOptions struct {
	// Name keeps only this owner name.
	Name string
	// Type keeps only this type.
	Type string
	// Limit is the page size (1-1000); the server's default when 0.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
	// IfNoneMatch is an ETag of an earlier read: an unchanged zone then
	// answers RecordPage.NotModified.
	IfNoneMatch string
}

// ListZonesOptions page GET /zones.
type ListZonesOptions struct {
	// Limit is the page size (1-1000); the server's default when 0.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
	// Type keeps only primary or secondary zones.
	Type string
	// All lists every zone named serves (all=true), not only the API's;
	// Managed, Source and View filter that list.
	All bool
	// Managed, with All, keeps the managed (true) or unmanaged (false)
	// zones only.
	Managed *bool
	// Source, with All, keeps the zones whose configuration comes from
	// there: named.conf, nzd or api.
	Source string
	// View, with All, keeps the zones of one view.
	View string
}
