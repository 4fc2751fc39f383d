package console

import (
	"context"
	"net/http"

	"github.com/caddyserver/caddy/v2"
)

// handlerFunc is a caddyhttp.Handler from a function.
type handlerFunc func(http.ResponseWriter, *http.Request) error

func (f handlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) error { return f(w, r) }

// caddyCtx is a Caddy context for Provision.
func caddyCtx() caddy.Context {
	ctx, _ := caddy.NewContext(caddy.Context{Context: context.Background()})
	return ctx
}
