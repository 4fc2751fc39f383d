// Package console is the operator console: a browser application, every
// file of it embedded in the module, served by its own Caddy handler
// (http.handlers.zone_api_console, Caddyfile directive zone_api_console).
// The application talks only to the REST API (/api/v1 by default) with the
// person's own token; the handler serves files and nothing else, so the
// console can do nothing the API would not let the same token do.
//
// Assets are served under a path named by a hash of all of them
// (assets/<hash>/app.js), with a year's cache lifetime; the page itself
// (index) is rendered with that path and never cached. Every answer carries
// a strict Content-Security-Policy (no inline script or style, no framing),
// X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer.
package console

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(Handler{})
}

//go:embed static
var files embed.FS

// CSP is the Content-Security-Policy of every console answer: scripts,
// styles, images and requests from the console's own origin only, no
// inline script or style, no plugins, no framing by any page.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the console under Path and passes every other request
// to the next handler.
type Handler struct {
	// Path is where the console is served; default /console/. It ends
	// in a slash; a request for it without the slash is redirected.
	Path string `json:"path,omitempty"`
	// API is the path of the REST API the console talks to, on the same
	// origin; default /api/v1.
	API string `json:"api,omitempty"`
	// OIDC, if set, offers the sign-in with an OpenID Connect provider
	// (authorization code flow with PKCE) beside the pasted token.
	OIDC *OIDC `json:"oidc,omitempty"`

	site *site
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.zone_api_console",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision applies the defaults and renders the page.
func (h *Handler) Provision(caddy.Context) error {
	if h.Path == "" {
		h.Path = "/console/"
	}
	if h.API == "" {
		h.API = "/api/v1"
	}
	if !strings.HasPrefix(h.Path, "/") {
		return fmt.Errorf("path %q: want an absolute path such as /console/", h.Path)
	}
	if !strings.HasSuffix(h.Path, "/") {
		h.Path += "/"
	}
	if !strings.HasPrefix(h.API, "/") {
		return fmt.Errorf("api %q: want an absolute path on the same origin such as /api/v1", h.API)
	}
	h.API = strings.TrimSuffix(h.API, "/")
	if h.OIDC != nil {
		if err := h.OIDC.provision(); err != nil {
			return err
		}
	}
	s, err := loadSite(h.API)
	if err != nil {
		return err
	}
	h.site = s
	return nil
}

// ServeHTTP serves the page, the assets, or passes the request on.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	p := r.URL.Path
	if p == strings.TrimSuffix(h.Path, "/") {
		setHeaders(w, CSP)
		http.Redirect(w, r, h.Path, http.StatusPermanentRedirect)
		return nil
	}
	rest, ok := strings.CutPrefix(p, h.Path)
	if !ok {
		return next.ServeHTTP(w, r)
	}
	if h.OIDC != nil && (rest == "" || rest == "index.html") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		// The page names the provider's endpoints, and its CSP allows
		// the token endpoint.
		// Not the request's cancellation: a client gone must not leave
		// a failed discovery cached for the next minute.
		c, src := h.OIDC.page(context.WithoutCancel(r.Context()))
		page, err := h.site.render(h.API, c)
		if err != nil {
			return err
		}
		h.site.servePage(w, r, page, CSPWith(src))
		return nil
	}
	h.site.serve(w, r, rest)
	return nil
}

// CSPWith is CSP with src added to connect-src (the OIDC provider's
// token endpoint); CSP itself when src is empty.
func CSPWith(src string) string {
	if src == "" {
		return CSP
	}
	return strings.Replace(CSP, "connect-src 'self';", "connect-src 'self' "+src+";", 1)
}

// setHeaders sets the security headers every console answer carries.
func setHeaders(w http.ResponseWriter, csp string) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// site is the console's content: the rendered page and the assets by
// name, under the directory named by their hash.
type site struct {
	hash   string
	index  []byte
	page   *template.Template
	assets map[string][]byte
}

// loadSite reads the embedded files, hashes them and renders the page
// for the API at api.
func loadSite(api string) (*site, error) {
	s := &site{assets: map[string][]byte{}}
	var names []string
	err := fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		if name == "index.html" {
			s.index = b
			return nil
		}
		s.assets[name] = b
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	sum := sha256.New()
	for _, n := range names {
		fmt.Fprintf(sum, "%s\x00%d\x00", n, len(s.assets[n]))
		sum.Write(s.assets[n])
	}
	s.hash = hex.EncodeToString(sum.Sum(nil))[:16]
	t, err := template.New("index").Parse(string(s.index))
	if err != nil {
		return nil, fmt.Errorf("console page: %v", err)
	}
	s.page = t
	if s.index, err = s.render(api, nil); err != nil {
		return nil, err
	}
	return s, nil
}

// render renders the page for the API at api and the sign-in with an
// OIDC provider, if oidc is set (the meta element zoneapi-oidc).
func (s *site) render(api string, oidc any) ([]byte, error) {
	data := map[string]any{"Assets": "assets/" + s.hash, "API": api}
	if oidc != nil {
		b, err := json.Marshal(oidc)
		if err != nil {
			return nil, err
		}
		data["OIDC"] = string(b)
	}
	var out bytes.Buffer
	if err := s.page.Execute(&out, data); err != nil {
		return nil, fmt.Errorf("console page: %v", err)
	}
	return out.Bytes(), nil
}

// serve answers the request for rest, the path below the console's.
func (s *site) serve(w http.ResponseWriter, r *http.Request, rest string) {
	setHeaders(w, CSP)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if rest == "" || rest == "index.html" {
		s.servePage(w, r, s.index, CSP)
		return
	}
	name, ok := strings.CutPrefix(rest, "assets/"+s.hash+"/")
	b, found := s.assets[name]
	if !ok || !found {
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("ETag", `"`+s.hash+`"`)
	// No modification time: the ETag (the hash) answers conditional
	// requests.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

// servePage answers with the page, never cached, under the CSP.
func (s *site) servePage(w http.ResponseWriter, r *http.Request, page []byte, csp string) {
	setHeaders(w, csp)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(page))
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
