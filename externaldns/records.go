package externaldns

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/externaldns/provider"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// listing caches each zone's endpoints, encoded, by serial, on top of the
// AXFR snapshot cache: an unchanged zone costs one SOA query and no work.
// The cache is the handler's (state.listings): a reload's new generation
// encodes each zone once more.
type listing struct {
	serial uint32
	json   []byte // the endpoints as JSON array elements, comma-separated
}

// readers bounds the zones read at once by one GET /records.
const readers = 8

func (h *Handler) getRecords(w http.ResponseWriter, r *http.Request) {
	svc, err := h.service()
	if err != nil {
		h.logger.Error("external-dns records", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	parts := make([][]byte, len(h.zones))
	errs := make([]error, len(h.zones))
	sem := make(chan struct{}, readers)
	var wg sync.WaitGroup
	for i, zone := range h.zones {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			parts[i], errs[i] = h.zoneListing(r.Context(), svc, zone)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			h.logger.Error("reading zone for external-dns", zap.String("zone", h.zones[i]), zap.Error(err))
			writeError(w, http.StatusInternalServerError, "reading zone %s: %v", h.zones[i], err)
			return
		}
	}
	w.Header().Set("Content-Type", MediaType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte{'['})
	first := true
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if !first {
			_, _ = w.Write([]byte{','})
		}
		first = false
		_, _ = w.Write(p)
	}
	_, _ = w.Write([]byte("]\n"))
}

// zoneListing returns the zone's endpoints as JSON array elements, from
// the cache while the zone's serial is unchanged.
func (h *Handler) zoneListing(ctx context.Context, svc zoneservice.Records, zone string) ([]byte, error) {
	snap, err := svc.Snapshot(ctx, zone)
	if err != nil {
		return nil, err
	}
	st := h.st
	st.listingsMu.Lock()
	l, ok := st.listings[zone]
	st.listingsMu.Unlock()
	if ok && l.serial == snap.Serial() {
		return l.json, nil
	}
	var b []byte
	if eps := provider.Endpoints(snap, zone); len(eps) > 0 {
		if b, err = json.Marshal(eps); err != nil {
			return nil, err
		}
		b = bytes.TrimSuffix(bytes.TrimPrefix(b, []byte{'['}), []byte{']'})
	}
	st.listingsMu.Lock()
	if st.listings == nil {
		st.listings = map[string]listing{}
	}
	st.listings[zone] = listing{serial: snap.Serial(), json: b}
	st.listingsMu.Unlock()
	return b, nil
}
