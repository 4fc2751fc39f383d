package rest

import (
	"net/http"
	"path"
	"strings"

	swaggerfiles "github.com/swaggo/files/v2"

	"github.com/zoneapi/caddy-zoneapi/apispec"
)

// The specification (OpenAPI, AsyncAPI) and the interactive explorer,
// served under the REST API's prefix as the docs option says; moved
// from module/docs.go, each handler returning its failure for serve.

// DocsRoutes lists the specification and explorer endpoints of a docs
// mode (apispec.DocsAuth, DocsPublic or DocsOff: none).
func DocsRoutes(mode string) []Route {
	if mode == apispec.DocsOff {
		return nil
	}
	public, d := mode == apispec.DocsPublic, docsPages{mode: mode}
	return []Route{
		{Method: http.MethodGet, Template: APIPrefix + "/openapi.json", Public: public, Handle: serve(d.handleSpec(false))},
		{Method: http.MethodGet, Template: APIPrefix + "/openapi.yaml", Public: public, Handle: serve(d.handleSpec(true))},
		{Method: http.MethodGet, Template: APIPrefix + "/asyncapi.json", Public: public, Handle: serve(handleAsyncAPI(false))},
		{Method: http.MethodGet, Template: APIPrefix + "/asyncapi.yaml", Public: public, Handle: serve(handleAsyncAPI(true))},
		{Method: http.MethodGet, Template: APIPrefix + "/docs", Public: public, Handle: serve(d.handleExplorer)},
		{Method: http.MethodGet, Template: APIPrefix + "/docs/{file}", Public: public, Handle: serve(d.handleExplorerAsset)},
	}
}

// docsPages serves the specification and the explorer of a docs mode.
type docsPages struct{ mode string }

// handleSpec serves the OpenAPI document as JSON or YAML.
func (p docsPages) handleSpec(asYAML bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ Params) error {
		d, err := apispec.Service(p.mode)
		if err != nil {
			return fail(http.StatusInternalServerError, "building the API specification: %v", err)
		}
		body, ctype := d.JSON(), "application/json"
		if asYAML {
			body, ctype = d.YAML(), "application/yaml"
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
		return nil
	}
}

// handleAsyncAPI serves the AsyncAPI document of the events as JSON or
// YAML.
func handleAsyncAPI(asYAML bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ Params) error {
		body, err := apispec.ServiceAsyncAPI()
		if err != nil {
			return fail(http.StatusInternalServerError, "building the AsyncAPI document: %v", err)
		}
		ctype := "application/json"
		if asYAML {
			body, ctype = apispec.YAML(body), "application/yaml"
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
		return nil
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
<link rel="stylesheet" href="` + APIPrefix + `/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="` + APIPrefix + `/docs/favicon-32x32.png">
</head>
<body>
<p style="font-family:sans-serif;margin:8px 20px">Events (the stream and the webhooks): <a href="` + APIPrefix + `/asyncapi.json">AsyncAPI 3.0 document</a> (<a href="` + APIPrefix + `/asyncapi.yaml">YAML</a>)</p>
<div id="swagger-ui"></div>
<script src="` + APIPrefix + `/docs/swagger-ui-bundle.js"></script>
<script src="` + APIPrefix + `/docs/explorer.js"></script>
</body>
</html>
`

// explorerJS starts Swagger UI on the served specification. Authorize
// takes a bearer token, which try-it-out requests then send; it is kept
// across reloads (persistAuthorization).
const explorerJS = `window.ui = SwaggerUIBundle({
  url: "` + APIPrefix + `/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  validatorUrl: null,
  oauth2RedirectUrl: window.location.origin + "` + APIPrefix + `/docs/oauth2-redirect.html",
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
func (docsPages) handleExplorer(w http.ResponseWriter, r *http.Request, _ Params) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	pageHeaders(w)
	_, _ = w.Write([]byte(explorerHTML))
	return nil
}

// explorerAssets are the Swagger UI files the page uses, served from the
// embedded dist directory (source maps too, for browser tools).
var explorerAssets = map[string]bool{
	"swagger-ui.css": true, "swagger-ui-bundle.js": true, "oauth2-redirect.html": true,
	"favicon-16x16.png": true, "favicon-32x32.png": true,
	"swagger-ui.css.map": true, "swagger-ui-bundle.js.map": true,
}

// handleExplorerAsset serves one explorer asset from the binary.
func (docsPages) handleExplorerAsset(w http.ResponseWriter, r *http.Request, p Params) error {
	name := p.Name
	if name == "explorer.js" {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		pageHeaders(w)
		_, _ = w.Write([]byte(explorerJS))
		return nil
	}
	if !explorerAssets[name] || strings.Contains(name, "/") || path.Clean(name) != name {
		return fail(http.StatusNotFound, "no such explorer asset: %s", name)
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	pageHeaders(w)
	http.ServeFileFS(w, r, swaggerfiles.FS, name)
	return nil
}
