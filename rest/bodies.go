package rest

import (
	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The handler's request and response bodies are package apitypes' types,
// which the Go client shares; the short names below are aliases, so each
// shape is written once. TestRequestBodiesMatchSpec (module) and
// TestTypesMatchServedSpec (client) check them against the served
// specification.
type (
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
	// modifyZoneRequest is the body of PATCH /api/v1/zones/{name} (see
	// apitypes.ModifyZone).
	modifyZoneRequest = apitypes.ModifyZone
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

// The conversions from the API's bodies to the zone model's domain types
// happen here, at the front end.

// createRequestOf converts the body of POST /zones to the zone model's
// create request. The model's request keeps its own JSON form: the zone
// service fingerprints it, and the fingerprints of the zones made so far
// must not change. TestCreateRequestWireAndModelStayConvertible pins that
// the two shapes stay field for field the same.
func createRequestOf(c *createZoneRequest) *zonemodel.CreateZoneRequest {
	req := &zonemodel.CreateZoneRequest{ZoneName: c.ZoneName, ZoneType: c.ZoneType, UpdateKeyName: c.UpdateKeyName}
	if zc := c.ZoneConfig; zc != nil {
		req.ZoneConfig = &zonemodel.ZoneConfig{
			TTL: zc.TTL, NameServers: zc.NameServers, NameServerIPs: zc.NameServerIPs,
			AlsoNotify: zc.AlsoNotify, AllowTransfer: zc.AllowTransfer, Primaries: zc.Primaries,
			DNSSECPolicy: zc.DNSSECPolicy, InlineSigning: zc.InlineSigning,
		}
		if s := zc.SOA; s != nil {
			soa := zonemodel.SOA(*s)
			req.ZoneConfig.SOA = &soa
		}
		if zc.Records != nil {
			req.ZoneConfig.Records = make([]zonemodel.Record, len(zc.Records))
			for i, r := range zc.Records {
				req.ZoneConfig.Records[i] = zonemodel.Record(r)
			}
		}
	}
	return req
}

// changesOf converts a batch's changes to the zone model's.
func changesOf(cs []changeRequest) []zonemodel.Change {
	out := make([]zonemodel.Change, len(cs))
	for i, c := range cs {
		out[i] = zonemodel.Change(c)
	}
	return out
}

// rrsetsOf converts the zone model's RRsets to the API's.
func rrsetsOf(sets []zonemodel.RRset) []apitypes.RRset {
	out := make([]apitypes.RRset, len(sets))
	for i, s := range sets {
		out[i] = apitypes.RRset{Name: s.Name, Type: s.Type, TTL: s.TTL, Values: s.Values}
	}
	return out
}
