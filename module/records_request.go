package module

import (
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Request bodies of the record endpoints. Each shape is written once: the
// bodies are the domain types the updater takes, whose JSON names are the
// API's (bindcar-compatible); TestRequestBodiesMatchSpec checks them
// against the served specification.
type (
	// addRecordRequest is the body of POST /api/v1/zones/{name}/records.
	addRecordRequest = zonemodel.Record
	// removeRecordRequest is the body of DELETE /api/v1/zones/{name}/records.
	removeRecordRequest = dnsupdate.Removal
	// updateRecordRequest is the body of PUT /api/v1/zones/{name}/records.
	updateRecordRequest = dnsupdate.Replacement
	// changeRequest is one item of a batchRequest.
	changeRequest = dnsupdate.Change
)

// batchRequest is the body of PATCH /api/v1/zones/{name}/records: changes
// applied in order as one UPDATE message, all or nothing.
type batchRequest struct {
	// Changes are the changes, applied in order.
	Changes []changeRequest `json:"changes"`
}
