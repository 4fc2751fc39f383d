package module

import (
	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// The bodies the handler still reads or writes itself are package
// apitypes' types (package rest has the REST handlers' own); the short
// names below are aliases, so each shape is written once.
type (
	errorBody = apitypes.Error
	// createZoneRequest is the body of POST /api/v1/zones.
	createZoneRequest = apitypes.CreateZone
	// batchRequest is the body of PATCH /api/v1/zones/{name}/records.
	batchRequest = apitypes.BatchRequest
)
