package rest

import (
	"errors"

	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// EnterFrontend admits an import of another front end (the PowerDNS
// API's) through the gate, as Enter does, its refusal as the front ends
// read it (frontend.ImportsBusy, with the status and message the REST
// API answers); moved from module/powerdns.go.
func (g *ImportGate) EnterFrontend(identity string) (func(), error) {
	release, err := g.Enter(identity)
	var busy *ImportsBusy
	if errors.As(err, &busy) {
		f := ImportFailure("", err)
		return nil, &frontend.ImportsBusy{Status: f.Status, Message: f.Message, RetryAfter: f.RetryAfter}
	}
	return release, err
}
