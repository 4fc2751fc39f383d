package frontend

import "github.com/caddyserver/caddy/v2"

// Namespace is the Caddy module namespace of the front ends zone_api can
// mount: a front end is the guest module zone_api.frontends.<name>, as
// the auth modes are zone_api.auth.<mode>, kept in Caddy's own module
// registry (`caddy list-modules` lists it), not in a registry of this
// package.
const Namespace = "zone_api.frontends"

// Mounter is the guest module of a front end: its Mount.
type Mounter interface {
	caddy.Module
	Mount() *Mount
}

// mountModule is the guest module Register makes of a Mount.
type mountModule struct {
	name  string
	mount *Mount
}

// CaddyModule returns the module's information: zone_api.frontends.<name>,
// whose New gives the same Mount (its fields are functions, never
// changed).
func (m mountModule) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: caddy.ModuleID(Namespace + "." + m.name), New: func() caddy.Module { return m }}
}

// Mount returns the front end's Mount.
func (m mountModule) Mount() *Mount { return m.mount }

// Register makes mount available under name, as the Caddy guest module
// zone_api.frontends.<name>; call it from the front end's init function.
// As caddy.RegisterModule, it panics when name is registered already.
func Register(name string, mount *Mount) {
	caddy.RegisterModule(mountModule{name: name, mount: mount})
}

// Lookup returns the mount registered under name, or nil when this build
// has none (or the module of that name is not a front end).
func Lookup(name string) *Mount {
	info, err := caddy.GetModule(Namespace + "." + name)
	if err != nil {
		return nil
	}
	m, ok := info.New().(Mounter)
	if !ok {
		return nil
	}
	return m.Mount()
}
