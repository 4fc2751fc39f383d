package rest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/jsonbody"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// importZoneRequest is the JSON body of POST /api/v1/zones/{name}/import.
type importZoneRequest = apitypes.ImportZone

// textDNS is the media type of a zone file sent as the body (RFC 4027).
const textDNS = "text/dns"

// handleImportZone creates the zone {name} from a zone file (the body,
// as text/dns, up to zonemodel.MaxImportBytes; or zoneFile in a JSON
// body), by AXFR from another server (axfr) or as a copy of a zone
// managed here (copyOf), through the zone service's Import and Copy. A
// copy needs the read action on the zone copied as well; a transfer, the
// server action. An
// Idempotency-Key is taken as on create. With ?dryRun=true, everything
// up to the zone's creation is done (the same scopes, limits and
// checks) and the records it would have are answered (200,
// apitypes.ImportPreview); nothing is written, and the Idempotency-Key
// is not recorded.
func (a *API) handleImportZone(w http.ResponseWriter, r *http.Request, p Params) error {
	name, err := zoneName(p)
	if err != nil {
		return err
	}
	key, err := idempotencyKeyOf(r)
	if err != nil {
		return err
	}
	dry := false
	if v := r.URL.Query().Get("dryRun"); v != "" {
		if dry, err = strconv.ParseBool(v); err != nil {
			return fail(http.StatusBadRequest, "dryRun must be true or false, got %q", v)
		}
	}
	// Counted in before the body is read: the body, the records parsed
	// from it and a named-checkzone process are what the bounds bound.
	release, err := a.Imports.Enter(zonemodel.ActorOf(r.Context()).Identity)
	if err != nil {
		return ImportFailure(name, err)
	}
	defer release()
	var (
		src    zonemodel.ImportSource
		copyOf string
		sum    = sha256.New()
	)
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct := r.Header.Get("Content-Type"); ct != "" && mt != textDNS && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return fail(http.StatusUnsupportedMediaType, "send the zone file with Content-Type: text/dns, or a JSON body (Content-Type: application/json); got %q", ct)
	}
	if mt == textDNS {
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, zonemodel.MaxImportBytes))
		if err != nil {
			if jsonbody.TooLarge(err) {
				return fail(http.StatusRequestEntityTooLarge, "the zone file exceeds %d bytes (64 MiB); larger zones can be imported by AXFR (docs/import.md)", zonemodel.MaxImportBytes)
			}
			return fail(http.StatusBadRequest, "reading the request body: %v", err)
		}
		if len(raw) == 0 {
			return fail(http.StatusBadRequest, "the request body is empty; send the zone file")
		}
		src.File = raw
		sum.Write([]byte("file\x00"))
		sum.Write(raw)
	} else {
		if r.ContentLength > a.MaxBodyBytes {
			return fail(http.StatusRequestEntityTooLarge, "a JSON body is limited to %d bytes; send a larger zone file as the body itself, with Content-Type: text/dns (up to 64 MiB)", a.MaxBodyBytes)
		}
		var body importZoneRequest
		if !a.Decode(w, r, p, &body) {
			return errAnswered
		}
		if err := a.importSource(w, r, &body, &src, &copyOf); err != nil {
			return err
		}
		j, _ := json.Marshal(&body)
		sum.Write([]byte("json\x00"))
		sum.Write(j)
	}
	svc, err := a.serviceFor(p) // the view addressed (?view=)
	if err != nil {
		return err
	}
	var b importService = svc
	fp := "import-" + hex.EncodeToString(sum.Sum(nil)[:16])
	if dry {
		var res *zonemodel.Previewed
		if copyOf != "" {
			res, err = b.PreviewCopy(r.Context(), copyOf, name, fp)
		} else {
			res, err = b.PreviewImport(r.Context(), name, &src, fp)
		}
		return a.previewAnswer(w, name, res, err)
	}
	run := func(w http.ResponseWriter, fp string, keyed bool) error {
		var res *zonemodel.Imported
		var err error
		if copyOf != "" {
			res, err = b.Copy(r.Context(), copyOf, name, fp)
		} else {
			res, err = b.Import(r.Context(), name, &src, fp)
		}
		return a.importAnswer(w, name, res, err, keyed)
	}
	if key == "" {
		return run(w, fp, false)
	}
	return a.createWithKey(w, r, b, name, fp, key, run)
}

// importSource reads a JSON import body into the zone service's source
// (or copyOf): 400 for a body that names no source or several (the copy's
// scope check answers 403 itself).
func (a *API) importSource(w http.ResponseWriter, r *http.Request, body *importZoneRequest, src *zonemodel.ImportSource, copyOf *string) error {
	given := 0
	for _, set := range []bool{body.ZoneFile != nil, body.AXFR != nil, body.CopyOf != ""} {
		if set {
			given++
		}
	}
	if given != 1 {
		return fail(http.StatusBadRequest, "give exactly one of zoneFile, axfr and copyOf (got %d); a zone file may also be sent as the body with Content-Type: text/dns", given)
	}
	switch {
	case body.ZoneFile != nil:
		src.File = []byte(*body.ZoneFile)
	case body.CopyOf != "":
		from, err := zonemodel.NormalizeZoneName(body.CopyOf)
		if err != nil {
			return fail(http.StatusBadRequest, "copyOf: invalid zone name %q: %v", body.CopyOf, err)
		}
		if !a.Allow(w, r, auth.ActionRead, from) {
			return errAnswered
		}
		*copyOf = from
	default:
		// A transfer makes this server connect to any address the client
		// names and read what answers: a scanner of the internal network
		// (unreachable, refused, not DNS, timeout) and a copier of the
		// zones of every server that allows transfers to this host (named
		// itself, its other views). Only an identity that may act on the
		// whole server (the server action, as reconcile) may ask for one
		// (docs/import.md).
		if !a.Allow(w, r, auth.ActionServer, "") {
			return errAnswered
		}
		// An address, never a host name: the server's resolver is not
		// asked about names a client chose.
		addr := body.AXFR.Address
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(strings.Trim(addr, "[]"), "53")
		}
		ap, err := netip.ParseAddrPort(addr)
		if err != nil || ap.Port() == 0 || ap.Addr().Zone() != "" {
			return fail(http.StatusBadRequest, "axfr.address %q: want ip, ip:port or [v6]:port (an IP address without a zone, a port from 1 to 65535; no host names)", body.AXFR.Address)
		}
		src.AXFR = &zonemodel.AXFRSource{Address: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String()}
		if k := body.AXFR.TSIG; k != nil {
			alg := k.Algorithm
			if alg == "" {
				alg = "hmac-sha256"
			}
			src.AXFR.Key = &zonemodel.TSIGKey{Name: k.Name, Algorithm: alg, Secret: k.Secret}
		}
	}
	return nil
}

// importAnswer answers an import or copy: 201 with the zone, its record
// count and serial; 409 for a zone that exists (as a create answers it);
// else importFailure.
func (a *API) importAnswer(w http.ResponseWriter, name string, res *zonemodel.Imported, err error, keyed bool) error {
	if err == nil && res.Existed && !keyed {
		err = &zonemodel.ServiceError{Kind: zonemodel.ErrExists, Zone: name, Msg: "zone " + name + " already exists", SameConfig: true}
	}
	var le *zonemodel.ServiceError
	if errors.As(err, &le) && errors.Is(err, zonemodel.ErrExists) {
		msg := le.Msg + "; it was made by another request"
		if le.SameConfig {
			msg = le.Msg + ", imported by an earlier request with the same body (send an Idempotency-Key to have a retry recognised as yours)"
		}
		return &answer{http.StatusConflict, conflictBody{Error: apitypes.ReasonPhrase(http.StatusConflict), Message: msg, SameConfig: le.SameConfig}}
	}
	if err != nil {
		return importFailure(name, err)
	}
	serial := res.Serial
	w.Header().Set("Location", APIPrefix+"/zones/"+ZonePathSegment(name))
	if !res.Existed {
		a.Logger.Info("zone imported", zap.String("zone", name), zap.Int("records", res.Records), zap.Uint32("serial", res.Serial), zap.String("checked_by", res.CheckedBy))
	}
	WriteJSON(w, http.StatusCreated, apitypes.ImportResult{
		Success: true, Message: "Zone " + name + " imported successfully", Details: res.Details,
		Zone:    &zoneInfo{Name: name, ZoneType: zonemodel.TypePrimary, FilePath: res.File, Serial: &serial},
		Records: res.Records, Serial: res.Serial, CheckedBy: res.CheckedBy, Warnings: res.Warnings,
	})
	return nil
}

// previewAnswer answers a dry run: 200 with the records the zone would
// have; the import's errors otherwise (409 for a zone that exists,
// whoever made it).
func (a *API) previewAnswer(w http.ResponseWriter, name string, res *zonemodel.Previewed, err error) error {
	if err == nil && res.Existed {
		err = &zonemodel.ServiceError{Kind: zonemodel.ErrExists, Zone: name, Msg: "zone " + name + " already exists", SameConfig: true}
	}
	if err != nil {
		return a.importAnswer(w, name, nil, err, false)
	}
	WriteJSON(w, http.StatusOK, apitypes.ImportPreview{
		DryRun: true, Message: "Zone " + name + " would be imported (dry run: nothing was written)",
		Zone: name, Records: res.Records, Serial: res.Serial, CheckedBy: res.CheckedBy, Warnings: res.Warnings,
		RRsets: rrsetsOf(res.RRsets),
	})
	return nil
}

// importService is what an import asks of the zone service of its view.
type importService interface {
	frontend.SourceImporter
	frontend.ZoneCopier
	frontend.ImportPreviewer
	frontend.CopyPreviewer
	frontend.IdempotencyKeeper
}

// importFailure is the answer to a failed import: 400 with the line for
// a refused zone file (apitypes.FileError), else ImportFailure's answer.
func importFailure(name string, err error) error {
	var fe *zonemodel.FileError
	if errors.Is(err, zonemodel.ErrInvalid) && errors.As(err, &fe) {
		return &answer{http.StatusBadRequest, apitypes.FileError{Error: apitypes.ReasonPhrase(http.StatusBadRequest),
			Message: fileRefused(name, fe), Line: fe.Line}}
	}
	return ImportFailure(name, err)
}

// fileRefused is the message of a refused zone file.
func fileRefused(name string, fe *zonemodel.FileError) string {
	return "zone " + name + " was not imported, nothing was written: " + fe.Error()
}

// ImportFailure is the answer to a failed import: 400 for a refused
// zone (its line in the message), 413 over the limits, 429 or 503 over
// the imports at once (ImportGate), 404 for a copy of an unknown zone,
// 502 for a source that failed and 504 for one that did not answer; the
// rest as a create's failures.
func ImportFailure(name string, err error) Failure {
	var fe *zonemodel.FileError
	var busy *ImportsBusy
	switch {
	case errors.As(err, &busy):
		return busy.failure()
	case errors.Is(err, zonemodel.ErrInvalid) && errors.As(err, &fe):
		return fail(http.StatusBadRequest, "%s", fileRefused(name, fe))
	case errors.Is(err, zonemodel.ErrTooLarge):
		return fail(http.StatusRequestEntityTooLarge, "%v", err)
	case errors.Is(err, zonemodel.ErrInvalid):
		return fail(http.StatusBadRequest, "%v", err)
	case errors.Is(err, zonemodel.ErrSource), errors.Is(err, zonemodel.ErrTransferRefused):
		return fail(http.StatusBadGateway, "%v; nothing was written", err)
	case errors.Is(err, zonemodel.ErrSourceTimeout):
		return fail(http.StatusGatewayTimeout, "%v; nothing was written", err)
	case errors.Is(err, zonemodel.ErrNotFound):
		return fail(http.StatusNotFound, "%v", err)
	default:
		return LifecycleFailure(name, err)
	}
}
