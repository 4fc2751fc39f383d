// Package console runs the operator console (package console of the main
// module) in a real browser, Debian's headless Chromium driven over the
// DevTools protocol by chromedp, against the real Caddy build and a real
// named: each journey checks what named then serves, not only the page.
// It is a Go module of its own so that chromedp's dependencies stay out of
// the main module's graph.
package console
