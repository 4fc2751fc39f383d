package externaldns

import "github.com/zoneapi/caddy-zoneapi/externaldns/provider"

// The webhook protocol's bodies are external-dns's own types, which the
// provider (package provider) works on.
type (
	// Endpoint is external-dns's endpoint.Endpoint.
	Endpoint = provider.Endpoint
	// ProviderProperty is a provider-specific property of an endpoint.
	ProviderProperty = provider.ProviderProperty
	// Changes is external-dns's plan.Changes.
	Changes = provider.Changes
)
