package rest

import (
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// recordsInScope keeps the RRsets whose name and type the grant allows.
func recordsInScope(g *auth.Grant, sets []zonemodel.RRset) []zonemodel.RRset {
	if !g.RestrictsRecords() {
		return sets
	}
	out := sets[:0:0]
	for _, s := range sets {
		if g.AllowsRecord(s.Name, s.Type) {
			out = append(out, s)
		}
	}
	return out
}
