package client

import (
	"context"
	"net/http"
	"net/url"
)

// ImportZoneFile creates the primary zone from a master file (RFC 1035
// section 5): POST /zones/{name}/import with Content-Type text/dns (at
// most 64 MiB). Like CreateZone it sends a new Idempotency-Key and sends
// the import again with it after a network error or a 504. A refused file
// is an *Error whose Message names the line.
func (c *Client) ImportZoneFile(ctx context.Context, zone string, file []byte) (*ImportResult, error) {
	return c.importZone(ctx, zone, request{raw: file, rawType: "text/dns"})
}

// ImportZone creates the primary zone by AXFR from another server
// (body.AXFR), as a copy of a zone managed here (body.CopyOf) or from a
// zone file in JSON (body.ZoneFile, at most 1 MiB): POST
// /zones/{name}/import, with a new Idempotency-Key as ImportZoneFile.
func (c *Client) ImportZone(ctx context.Context, zone string, body ImportZone) (*ImportResult, error) {
	return c.importZone(ctx, zone, request{body: body})
}

func (c *Client) importZone(ctx context.Context, zone string, r request) (*ImportResult, error) {
	r.method, r.path, r.idempotent = http.MethodPost, zonePath(zone)+"/import", true
	r.header = http.Header{"Idempotency-Key": []string{`"` + NewIdempotencyKey() + `"`}}
	var v ImportResult
	if _, err := c.call(ctx, r, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// PreviewImportZoneFile is ImportZoneFile's dry run (?dryRun=true): the
// file is checked as the import checks it and the records the zone would
// have are answered; nothing is written. It sends no Idempotency-Key.
func (c *Client) PreviewImportZoneFile(ctx context.Context, zone string, file []byte) (*ImportPreview, error) {
	return c.previewImport(ctx, zone, request{raw: file, rawType: "text/dns"})
}

// PreviewImportZone is ImportZone's dry run: an AXFR source is
// transferred from (it needs the server action, as the import does) and
// checked, and the records the zone would have are answered; nothing is
// written.
func (c *Client) PreviewImportZone(ctx context.Context, zone string, body ImportZone) (*ImportPreview, error) {
	return c.previewImport(ctx, zone, request{body: body})
}

func (c *Client) previewImport(ctx context.Context, zone string, r request) (*ImportPreview, error) {
	r.method, r.path, r.idempotent = http.MethodPost, zonePath(zone)+"/import", true
	r.query = url.Values{"dryRun": []string{"true"}}
	var v ImportPreview
	if _, err := c.call(ctx, r, &v); err != nil {
		return nil, err
	}
	return &v, nil
}
