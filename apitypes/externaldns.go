package apitypes

// The external-dns webhook's bodies (media type
// application/external.dns.webhook+json;version=1): external-dns's own
// types, which the webhook's HTTP side (package externaldns/webhook) and
// its provider (package externaldns/provider) share. They are not the
// REST API's and not in its served documents.

// ExternalDNSEndpoint is external-dns's endpoint.Endpoint, as the webhook
// protocol carries it.
type ExternalDNSEndpoint struct {
	DNSName          string                `json:"dnsName,omitempty"`
	Targets          []string              `json:"targets,omitempty"`
	RecordType       string                `json:"recordType,omitempty"`
	SetIdentifier    string                `json:"setIdentifier,omitempty"`
	RecordTTL        int64                 `json:"recordTTL,omitempty"`
	Labels           map[string]string     `json:"labels,omitempty"`
	ProviderSpecific []ExternalDNSProperty `json:"providerSpecific,omitempty"`
}

// ExternalDNSProperty is a provider-specific property of an endpoint.
type ExternalDNSProperty struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// ExternalDNSChanges is external-dns's plan.Changes.
type ExternalDNSChanges struct {
	Create    []*ExternalDNSEndpoint `json:"create,omitempty"`
	UpdateOld []*ExternalDNSEndpoint `json:"updateOld,omitempty"`
	UpdateNew []*ExternalDNSEndpoint `json:"updateNew,omitempty"`
	Delete    []*ExternalDNSEndpoint `json:"delete,omitempty"`
}
