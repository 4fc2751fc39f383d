package module

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// readyTimeout bounds the readiness probe's rndc round trip.
const readyTimeout = 3 * time.Second

func (a *restAPI) handleHealth(w http.ResponseWriter, r *http.Request, _ params) {
	writeJSON(w, http.StatusOK, apitypes.Health{Status: "healthy", Version: Version})
}

// handleReady checks, concurrently, that the zone directory is a writable
// directory and that named answers `status` on the control channel. It
// also names the managed zones named does not load (the last full
// reconcile's finding), without counting them as a failed check.
func (a *restAPI) handleReady(w http.ResponseWriter, r *http.Request, _ params) {
	var (
		wg      sync.WaitGroup
		dirErr  error
		rndcErr error
		histErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		dirErr = zonestore.CheckDir(a.zoneDir)
	}()
	go func() {
		defer wg.Done()
		b, err := a.backend()
		if err != nil {
			rndcErr = err
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		// Probes come every few seconds: counted, but logged at debug only.
		if b.svc.History != nil {
			// Its last write failed and its directory still takes no
			// write (docs/history.md): changes are made, but recorded
			// only in the log.
			histErr = b.svc.History.Check()
		}
		_, rndcErr = b.svc.ServerStatus(quiet(ctx))
		if le := (*zoneservice.Error)(nil); errors.As(rndcErr, &le) && le.Err != nil {
			rndcErr = le.Err // the check names named's own error
		}
		a.rndcLog.Debug("readiness probe", zap.String("command", "status"), zap.Error(rndcErr))
	}()
	wg.Wait()

	checks := []string{}
	if dirErr != nil {
		checks = append(checks, "zone_dir_accessible: "+a.zoneDir)
		a.logger.Warn("readiness check failed", zap.String("check", "zone_dir_accessible"), zap.Error(dirErr))
	}
	if rndcErr != nil {
		checks = append(checks, "rndc_error: "+rndcErr.Error())
		a.logger.Warn("readiness check failed", zap.String("check", "rndc_error"), zap.Error(rndcErr))
	}
	if histErr != nil {
		checks = append(checks, "history_writable: "+histErr.Error())
		a.logger.Warn("readiness check failed", zap.String("check", "history_writable"), zap.Error(histErr))
	}
	status := http.StatusOK
	if len(checks) > 0 {
		status = http.StatusServiceUnavailable
	}
	var notLoaded []string
	// /ready answers without a token (probes send none): zone names and
	// BIND's reasons are shown only to a request authenticated as an
	// identity that may do server-wide operations.
	if id := authOf(r).id; id == nil || !id.Grant.AllowsServer() {
		writeJSON(w, status, apitypes.Readiness{Checks: checks, Ready: len(checks) == 0})
		return
	}
	if b, err := a.backend(); err == nil {
		for _, f := range b.svc.NotLoaded() {
			notLoaded = append(notLoaded, f.Zone+": "+f.Detail)
		}
	}
	writeJSON(w, status, apitypes.Readiness{Checks: checks, Ready: len(checks) == 0, ZonesNotLoaded: notLoaded})
}

func (a *restAPI) handleServerStatus(w http.ResponseWriter, r *http.Request, _ params) {
	b, ok := a.backendOr500(w)
	if !ok {
		return
	}
	st, err := b.svc.ServerStatus(r.Context())
	if err != nil {
		a.serviceFailed(w, "", err)
		return
	}
	writeJSON(w, http.StatusOK, serverStatusBody{
		Status: st.Raw, Version: st.Version, BootTime: st.BootTime, LastConfigured: st.LastConfigured,
		NumberOfZones: st.NumberOfZones, DebugLevel: st.DebugLevel, XfersRunning: st.XfersRunning,
		XfersDeferred: st.XfersDeferred, SOAQueries: st.SOAQueries, QueryLogging: st.QueryLogging,
		RecursiveClients: st.RecursiveClients, TCPClients: st.TCPClients, ServerUp: st.ServerUp, Fields: st.Fields,
	})
}
