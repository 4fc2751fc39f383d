package apispec

import (
	"embed"
	"encoding/json"
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

// serviceDoc is the service's document of one docs mode, built once
// (its resources are embedded: an error would recur).
type serviceDoc struct {
	once sync.Once
	doc  *Document
	err  error
}

// serviceDocs are the service's documents by docs mode.
var serviceDocs = map[string]*serviceDoc{DocsAuth: {}, DocsPublic: {}, DocsOff: {}}

// Service returns the OpenAPI document of the zone_api service itself:
// resources/zones.yaml, with resources/fragment.yaml merged in, and the
// specification and explorer endpoints of resources/docs.yaml unless
// docsMode is DocsOff; with DocsPublic they need no token. The document is
// built once per mode and shared.
func Service(docsMode string) (*Document, error) {
	if docsMode == "" {
		docsMode = DocsAuth
	}
	sd, ok := serviceDocs[docsMode]
	if !ok {
		return nil, fmt.Errorf("docs mode %q: want %s, %s or %s", docsMode, DocsPublic, DocsAuth, DocsOff)
	}
	sd.once.Do(func() { sd.doc, sd.err = buildService(docsMode) })
	return sd.doc, sd.err
}

// buildService builds Service's document of a docs mode.
func buildService(docsMode string) (*Document, error) {
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
	change, err := changeSchema()
	if err != nil {
		return nil, err
	}
	frags := [][]byte{read("fragment.yaml"), read("fleet.yaml"), read("lifecycle.yaml"), read("import.yaml"), read("changes.yaml"), change, read("events-fragment.yaml"), read("discovery.yaml"), read("auth.yaml")}
	switch docsMode {
	case DocsAuth:
		frags = append(frags, read("docs.yaml"))
	case DocsPublic:
		frags = append(frags, read("docs.yaml"), []byte(publicDocs))
	}
	d, err := OpenAPI([]*Resource{r}, Options{
		Title:       "zoneapi",
		Version:     version.Version,
		Description: "Manage the zones and records of a BIND 9 name server. Every endpoint except health and ready needs `Authorization: Bearer <token>`." + asyncLink(docsMode),
		Servers:     []string{ServiceServer},
		Fragments:   frags,
		// Scopes and rate limits (the auth package) answer these on
		// every authenticated endpoint.
		SecuredErrors: []string{"403", "429"},
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// publicDocs makes the specification and explorer endpoints public.
const publicDocs = `
paths:
  /v1/openapi.json: {get: {security: []}}
  /v1/openapi.yaml: {get: {security: []}}
  /v1/asyncapi.json: {get: {security: []}}
  /v1/asyncapi.yaml: {get: {security: []}}
  /v1/docs: {get: {security: []}}
  /v1/docs/{file}: {get: {security: []}}
`

var (
	asyncOnce sync.Once
	asyncDoc  []byte
	asyncErr  error
)

// ServiceAsyncAPI returns the AsyncAPI 3.0 document of the zone_api
// service's events, as indented JSON: generated from resources/events.yaml
// (asyncapi.publish: a channel at /v1/events whose message payload is the
// item schema) with resources/events-asyncapi.yaml merged in (the stream's
// framing and the webhook channel). It is built once.
func ServiceAsyncAPI() ([]byte, error) {
	asyncOnce.Do(func() {
		r, err := Parse("resources/events.yaml", readService("events.yaml"))
		if err != nil {
			asyncErr = fmt.Errorf("the service's events resource file: %w", err)
			return
		}
		asyncDoc, asyncErr = AsyncAPI([]*Resource{r}, Options{
			Title:          "zoneapi events",
			Version:        version.Version,
			Description:    "The change events of the zones a zoneapi service manages: a Server-Sent Events stream and signed webhooks, both carrying the entries of the durable change history.",
			AsyncFragments: [][]byte{readService("events-asyncapi.yaml")},
		})
	})
	return asyncDoc, asyncErr
}

// changeSchema is a fragment holding components.schemas.Change: the item
// schema of resources/events.yaml, so that the history reads, the events
// and the webhooks are described by one schema.
func changeSchema() ([]byte, error) {
	r, err := Parse("resources/events.yaml", readService("events.yaml"))
	if err != nil {
		return nil, fmt.Errorf("the service's events resource file: %w", err)
	}
	// JSON is YAML: the fragment is written as JSON.
	return json.Marshal(map[string]any{"components": map[string]any{"schemas": map[string]any{"Change": r.Schema.Items}}})
}

// readService reads an embedded resource file of the service.
func readService(name string) []byte {
	b, err := serviceFiles.ReadFile("resources/" + name)
	if err != nil {
		panic(err) // embedded; cannot happen
	}
	return b
}

// asyncLink is the sentence of the OpenAPI description that links the
// explorer to the AsyncAPI document of the events, when it is served.
func asyncLink(docsMode string) string {
	if docsMode == DocsOff {
		return ""
	}
	return " The change events (the stream GET /v1/events and the webhooks) are described by the [AsyncAPI 3.0 document](/api/v1/asyncapi.json) ([YAML](/api/v1/asyncapi.yaml))."
}
