package rest

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// Named maps the view a request names to the one it addresses: without
// views configured, named's name of its only view
// (zonemodel.ZoneViewDefault, inventory.DefaultView, which `?all=true`
// lists) is the default, as no view at all is. Moved from
// module/views.go.
func (t Views) Named(view string) string {
	if view == zonemodel.ZoneViewDefault && !t.Configured() {
		return ""
	}
	return view
}

// Resolve is the view a request addresses: the one it names, else the
// default view ("" when there is none). Moved from module/views.go.
func (t Views) Resolve(view string) string {
	if view == "" {
		return t.Default
	}
	return view
}
