package module

import (
	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// The bodies the handler still reads or writes itself are package
// apitypes' types (package rest has the REST handlers' own); the short
// names below are aliases, so each shape is written once.
type (
	errorBody    = apitypes.Error
	zoneSettings = apitypes.ZoneSettings

	// createZoneRequest is the body of POST /api/v1/zones.
	createZoneRequest = apitypes.CreateZone
	// addRecordRequest, removeRecordRequest, updateRecordRequest and
	// batchRequest are the bodies of the record routes, whose records
	// the scope check reads (allowRecords).
	addRecordRequest    = apitypes.Record
	removeRecordRequest = apitypes.RemoveRecord
	updateRecordRequest = apitypes.UpdateRecord
	batchRequest        = apitypes.BatchRequest
)
