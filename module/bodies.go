package module

import (
	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// The handler's request and response bodies are package apitypes' types,
// which the Go client shares; the short names below are aliases, so each
// shape is written once. TestRequestBodiesMatchSpec (here) and
// TestTypesMatchServedSpec (client) check them against the served
// specification.
type (
	errorBody        = apitypes.Error
	zoneResponse     = apitypes.ZoneResponse
	zoneInfo         = apitypes.ZoneInfo
	listBody         = apitypes.ZonePage
	zoneSettings     = apitypes.ZoneSettings
	modifyResponse   = apitypes.ModifyZoneResponse
	notifyResponse   = apitypes.NotifyResponse
	notifiedServer   = apitypes.NotifiedServer
	serverStatusBody = apitypes.ServerStatus
	recordBody       = apitypes.RecordChange
	recordDetails    = apitypes.RecordChangeDetails
	storedRecord     = apitypes.StoredRecord
	batchBody        = apitypes.BatchResult
	listRecordsBody  = apitypes.RecordPage

	// createZoneRequest is the body of POST /api/v1/zones.
	createZoneRequest = apitypes.CreateZone
	// ModifyZoneRequest is the body of PATCH /api/v1/zones/{name} (see
	// apitypes.ModifyZone).
	ModifyZoneRequest = apitypes.ModifyZone
	// addRecordRequest is the body of POST /api/v1/zones/{name}/records.
	addRecordRequest = apitypes.Record
	// removeRecordRequest is the body of DELETE /api/v1/zones/{name}/records.
	removeRecordRequest = apitypes.RemoveRecord
	// updateRecordRequest is the body of PUT /api/v1/zones/{name}/records.
	updateRecordRequest = apitypes.UpdateRecord
	// batchRequest is the body of PATCH /api/v1/zones/{name}/records:
	// changes applied in order as one UPDATE message, all or nothing.
	batchRequest = apitypes.BatchRequest
	// changeRequest is one item of a batchRequest.
	changeRequest = apitypes.Change
)
