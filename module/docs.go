package module

import (
	"fmt"

	"github.com/zoneapi/caddy-zoneapi/apispec"
)

// The docs option's values: the specification and the explorer need a
// bearer token (auth, the default), need none (public), or are not served
// (off).
const (
	DocsAuth   = apispec.DocsAuth
	DocsPublic = apispec.DocsPublic
	DocsOff    = apispec.DocsOff
)

// docsMode returns the configured docs mode, auth by default.
func (h *Handler) docsMode() string {
	if h.Docs == "" {
		return DocsAuth
	}
	return h.Docs
}

// validateDocs checks the docs option and that the service's specification
// builds (it is embedded, so this fails only on a broken build).
func (h *Handler) validateDocs() error {
	switch h.docsMode() {
	case DocsAuth, DocsPublic, DocsOff:
	default:
		return fmt.Errorf("docs: want %s, %s or %s, got %q", DocsPublic, DocsAuth, DocsOff, h.Docs)
	}
	if _, err := apispec.Service(h.docsMode()); err != nil {
		return fmt.Errorf("building the API specification: %v", err)
	}
	return nil
}

// spec returns the service's OpenAPI document for the configured mode.
func (h *Handler) spec() (*apispec.Document, error) {
	return apispec.Service(h.docsMode())
}
