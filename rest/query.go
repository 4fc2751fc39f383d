package rest

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/zoneapi/caddy-zoneapi/apispec"
)

// RepeatedQuery is the 400 message of a request that gives a query
// parameter more than once, "" when it gives none twice. Only the
// parameters the served specification declares as arrays (the event
// stream's zone and type) may be repeated; a handler reads the first of
// several values, so a repeat would have it act on a request other than
// the one sent (?all=true&all=yes listed every zone). The PowerDNS API's
// parameters, which the specification does not describe, are given
// once too (moved from module/routes.go).
func RepeatedQuery(spec func() (*apispec.Document, error), method, template string, q url.Values) string {
	var problems []string
	var d *apispec.Document
	for name, values := range q {
		if len(values) > 1 && d == nil {
			d, _ = spec() // only when something is repeated
		}
		if len(values) > 1 && (d == nil || !d.RepeatableQuery(method, template, name)) {
			problems = append(problems, fmt.Sprintf("query parameter %q is given %d times; give it once", name, len(values)))
		}
	}
	sort.Strings(problems)
	return ProblemList(problems)
}
