package integration

import (
	"net/http"
	"testing"
)

// TestQueryParamsStrict: through Caddy and named, a query parameter
// given twice and a zone list's cursor that no list answers are 400
// naming the parameter, on the zone API's lists (managed and every zone
// named serves), record reads and the PowerDNS API's routes, and the
// zones are unchanged (issue 25, defect 5). Before, ?all=true&cursor=%00
// and ?all=true&all=yes answered 200 with the whole list, while a
// repeated view was already 400.
func TestQueryParamsStrict(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: "powerdns\nstatistics_channel " + ns.StatsAddr})
	for _, z := range []string{"qa.test", "qb.test"} {
		expect(t, c.do("POST", "/api/v1/zones", zoneBody(z)), http.StatusCreated, "create "+z)
	}
	for _, q := range []struct{ path, want string }{
		{"/api/v1/zones?cursor=%00", `cursor "\x00" is not a cursor of this list`},
		{"/api/v1/zones?all=true&cursor=%00", "is not a cursor of the list of every zone"},
		{"/api/v1/zones?all=true&all=yes", `query parameter "all" is given 2 times`},
		{"/api/v1/zones?all=yes", "all must be true or false"},
		{"/api/v1/zones?limit=1&limit=1000", `query parameter "limit" is given 2 times`},
		{"/api/v1/zones?all=true&managed=true&managed=false", `query parameter "managed" is given 2 times`},
		{"/api/v1/zones/qa.test/records?name=www&name=@", `query parameter "name" is given 2 times`},
		{"/api/v1/zones/qa.test?view=a&view=b", "given 2 times"},
	} {
		expectError(t, c.do("GET", q.path, nil), http.StatusBadRequest, "Bad Request", q.want)
	}
	pdnsError(t, c.pdns(testToken, "GET", zonesPath+"/qa.test.?rrsets=false&rrsets=true", nil), http.StatusBadRequest, `query parameter "rrsets" is given 2 times`)
	pdnsError(t, c.pdns(testToken, "GET", "/api/v1/servers/localhost/search-data?q=*&max=1&max=100000", nil), http.StatusBadRequest, `query parameter "max" is given 2 times`)
	// PowerDNS refuses a boolean it does not know with 422, as here.
	pdnsError(t, c.pdns(testToken, "GET", zonesPath+"/qa.test.?record_count=yes", nil), http.StatusUnprocessableEntity, "'record_count' request parameter value 'yes' is not supported")

	// The nextCursor of each list is a cursor of it.
	r := c.do("GET", "/api/v1/zones?limit=1", nil)
	expect(t, r, http.StatusOK, "the first page")
	next, _ := r.body["nextCursor"].(string)
	r = c.do("GET", "/api/v1/zones?limit=1&cursor="+next, nil)
	expect(t, r, http.StatusOK, "the page after "+next)
	r = c.do("GET", "/api/v1/zones?all=true&limit=1", nil)
	expect(t, r, http.StatusOK, "the first page of every zone")
	next, _ = r.body["nextCursor"].(string)
	expect(t, c.do("GET", "/api/v1/zones?all=true&limit=1&cursor="+next, nil), http.StatusOK, "the page after "+next)
}
