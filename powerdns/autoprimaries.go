package powerdns

import (
	"net/http"
	"strings"
)

// Autoprimary is a PowerDNS autoprimary (supermaster): a primary whose
// NOTIFY for a zone the server does not have makes it create that zone
// as a secondary.
type Autoprimary struct {
	IP         string `json:"ip"`
	Nameserver string `json:"nameserver"`
	Account    string `json:"account"`
}

// whyNoAutoprimaries is why none can be added: named has no such thing.
const whyNoAutoprimaries = "autoprimaries are not supported: named creates no zone on a primary's NOTIFY; create the secondary zones through this API (kind Slave), or have named consume the primary's catalog zone (RFC 9432, named.conf's catalog-zones)"

// listAutoprimaries answers GET /autoprimaries: named has none, so the
// list is empty.
func (a *API) listAutoprimaries(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, []Autoprimary{})
}

// createAutoprimary answers POST /autoprimaries: 422, with why.
func (a *API) createAutoprimary(w http.ResponseWriter, r *http.Request, _ string) {
	var ap Autoprimary
	if !decode(w, r, &ap) {
		return
	}
	WriteError(w, http.StatusUnprocessableEntity, "%s", whyNoAutoprimaries)
}

// deleteAutoprimary answers DELETE /autoprimaries/{ip}/{nameserver}:
// there are none, so none is found (404).
func (a *API) deleteAutoprimary(w http.ResponseWriter, r *http.Request, _ string) {
	which := strings.TrimPrefix(r.URL.Path, Prefix+"/autoprimaries/")
	WriteError(w, http.StatusNotFound, "Could not find autoprimary %s", which)
}
