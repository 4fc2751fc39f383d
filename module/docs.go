package module

import (
	"fmt"
	"net/http"
	"path"
	"strings"

	swaggerfiles "github.com/swaggo/files/v2"

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

// docsRoutes lists the specification and explorer endpoints.
func (h *Handler) docsRoutes() []route {
	mode := h.docsMode()
	if mode == DocsOff {
		return nil
	}
	public, d := mode == DocsPublic, docsPages{mode: mode}
	return []route{
		{method: http.MethodGet, template: apiPrefix + "/openapi.json", public: public, handle: d.handleSpec(false)},
		{method: http.MethodGet, template: apiPrefix + "/openapi.yaml", public: public, handle: d.handleSpec(true)},
		{method: http.MethodGet, template: apiPrefix + "/asyncapi.json", public: public, handle: handleAsyncAPI(false)},
		{method: http.MethodGet, template: apiPrefix + "/asyncapi.yaml", public: public, handle: handleAsyncAPI(true)},
		{method: http.MethodGet, template: apiPrefix + "/docs", public: public, handle: d.handleExplorer},
		{method: http.MethodGet, template: apiPrefix + "/docs/{file}", public: public, handle: d.handleExplorerAsset},
	}
}

// docsPages serves the specification and the explorer of a docs mode.
type docsPages struct{ mode string }

// spec returns the service's OpenAPI document for the configured mode.
func (h *Handler) spec() (*apispec.Document, error) {
	return apispec.Service(h.docsMode())
}

// handleSpec serves the OpenAPI document as JSON or YAML.
func (p docsPages) handleSpec(asYAML bool) func(http.ResponseWriter, *http.Request, params) {
	return func(w http.ResponseWriter, r *http.Request, _ params) {
		d, err := apispec.Service(p.mode)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "building the API specification: %v", err)
			return
		}
		body, ctype := d.JSON(), "application/json"
		if asYAML {
			body, ctype = d.YAML(), "application/yaml"
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	}
}

// handleAsyncAPI serves the AsyncAPI document of the events as JSON or
// YAML.
func handleAsyncAPI(asYAML bool) func(http.ResponseWriter, *http.Request, params) {
	return func(w http.ResponseWriter, r *http.Request, _ params) {
		body, err := apispec.ServiceAsyncAPI()
		if err != nil {
			writeError(w, http.StatusInternalServerError, "building the AsyncAPI document: %v", err)
			return
		}
		ctype := "application/json"
		if asYAML {
			body, ctype = apispec.YAML(body), "application/yaml"
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	}
}

// explorerHTML is the explorer's page. Its assets come from the binary
// (Swagger UI, embedded by github.com/swaggo/files/v2), so it works
// offline; the online validator badge is off.
const explorerHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>zoneapi API explorer</title>
<link rel="stylesheet" href="` + apiPrefix + `/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="` + apiPrefix + `/docs/favicon-32x32.png">
</head>
<body>
<p style="font-family:sans-serif;margin:8px 20px">Events (the stream and the webhooks): <a href="` + apiPrefix + `/asyncapi.json">AsyncAPI 3.0 document</a> (<a href="` + apiPrefix + `/asyncapi.yaml">YAML</a>)</p>
<div id="swagger-ui"></div>
<script src="` + apiPrefix + `/docs/swagger-ui-bundle.js"></script>
<script src="` + apiPrefix + `/docs/explorer.js"></script>
</body>
</html>
`

// explorerJS starts Swagger UI on the served specification. Authorize
// takes a bearer token, which try-it-out requests then send; it is kept
// across reloads (persistAuthorization).
const explorerJS = `window.ui = SwaggerUIBundle({
  url: "` + apiPrefix + `/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  validatorUrl: null,
  oauth2RedirectUrl: window.location.origin + "` + apiPrefix + `/docs/oauth2-redirect.html",
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
});
`

// pageHeaders sets what the explorer's responses send besides their
// content: its pages hold a bearer token once authorized, so no other
// site may frame them (clickjacking), they send no referrer, and they
// take no plugin or base URL from elsewhere. Scripts and styles are not
// restricted (Swagger UI's bundle sets styles inline).
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'; object-src 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
}

// handleExplorer serves the explorer's HTML page.
func (docsPages) handleExplorer(w http.ResponseWriter, r *http.Request, _ params) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	pageHeaders(w)
	_, _ = w.Write([]byte(explorerHTML))
}

// explorerAssets are the Swagger UI files the page uses, served from the
// embedded dist directory (source maps too, for browser tools).
var explorerAssets = map[string]bool{
	"swagger-ui.css": true, "swagger-ui-bundle.js": true, "oauth2-redirect.html": true,
	"favicon-16x16.png": true, "favicon-32x32.png": true,
	"swagger-ui.css.map": true, "swagger-ui-bundle.js.map": true,
}

// handleExplorerAsset serves one explorer asset from the binary.
func (docsPages) handleExplorerAsset(w http.ResponseWriter, r *http.Request, p params) {
	name := p.name
	if name == "explorer.js" {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		pageHeaders(w)
		_, _ = w.Write([]byte(explorerJS))
		return
	}
	if !explorerAssets[name] || strings.Contains(name, "/") || path.Clean(name) != name {
		writeError(w, http.StatusNotFound, "no such explorer asset: %s", name)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	pageHeaders(w)
	http.ServeFileFS(w, r, swaggerfiles.FS, name)
}
