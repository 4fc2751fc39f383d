package apispec

import (
	"embed"
	"fmt"
	"sync"

	"github.com/zoneapi/caddy-zoneapi/internal/version"
)

//go:embed resources/*.yaml
var serviceFiles embed.FS

// ServiceServer is the server URL of the service's own document: the
// resource paths start at /v1, under the /api prefix.
const ServiceServer = "/api"

// Docs modes of the service document, matching the zone_api directive's
// docs option.
const (
	DocsAuth   = "auth"
	DocsPublic = "public"
	DocsOff    = "off"
)

var (
	serviceMu   sync.Mutex
	serviceDocs = map[string]*Document{}
)

// Service returns the OpenAPI document of the zone_api service itself:
// resources/zones.yaml, with resources/fragment.yaml merged in, and the
// specification and explorer endpoints of resources/docs.yaml unless
// docsMode is DocsOff; with DocsPublic they need no token. The document is
// built once per mode and shared.
func Service(docsMode string) (*Document, error) {
	if docsMode == "" {
		docsMode = DocsAuth
	}
	serviceMu.Lock()
	defer serviceMu.Unlock()
	if d, ok := serviceDocs[docsMode]; ok {
		return d, nil
	}
	read := func(name string) []byte {
		b, err := serviceFiles.ReadFile("resources/" + name)
		if err != nil {
			panic(err) // embedded; cannot happen
		}
		return b
	}
	r, err := Parse("resources/zones.yaml", read("zones.yaml"))
	if err != nil {
		return nil, fmt.Errorf("the service's resource file: %w", err)
	}
	frags := [][]byte{read("fragment.yaml"), read("fleet.yaml"), read("lifecycle.yaml")}
	switch docsMode {
	case DocsAuth:
		frags = append(frags, read("docs.yaml"))
	case DocsPublic:
		frags = append(frags, read("docs.yaml"), []byte(publicDocs))
	case DocsOff:
	default:
		return nil, fmt.Errorf("docs mode %q: want %s, %s or %s", docsMode, DocsPublic, DocsAuth, DocsOff)
	}
	d, err := OpenAPI([]*Resource{r}, Options{
		Title:       "zoneapi",
		Version:     version.Version,
		Description: "Manage the zones and records of a BIND 9 name server. Every endpoint except health and ready needs `Authorization: Bearer <token>`.",
		Servers:     []string{ServiceServer},
		Fragments:   frags,
		// Scopes and rate limits (the auth package) answer these on
		// every authenticated endpoint.
		SecuredErrors: []string{"403", "429"},
	})
	if err != nil {
		return nil, err
	}
	serviceDocs[docsMode] = d
	return d, nil
}

// publicDocs makes the specification and explorer endpoints public.
const publicDocs = `
paths:
  /v1/openapi.json: {get: {security: []}}
  /v1/openapi.yaml: {get: {security: []}}
  /v1/docs: {get: {security: []}}
  /v1/docs/{file}: {get: {security: []}}
`
