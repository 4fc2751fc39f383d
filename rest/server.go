package rest

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// readyTimeout bounds the readiness probe's rndc round trip.
const readyTimeout = 3 * time.Second

func (a *API) handleHealth(w http.ResponseWriter, r *http.Request, _ Params) error {
	WriteJSON(w, http.StatusOK, apitypes.Health{Status: "healthy", Version: a.Version})
	return nil
}

// handleReady checks, concurrently, that the zone directory is a writable
// directory and that named answers `status` on the control channel. It
// also names the managed zones named does not load (the last full
// reconcile's finding), without counting them as a failed check.
func (a *API) handleReady(w http.ResponseWriter, r *http.Request, _ Params) error {
	var (
		wg      sync.WaitGroup
		dirErr  error
		rndcErr error
		histErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		dirErr = a.CheckZoneDir()
	}()
	go func() {
		defer wg.Done()
		s, err := a.Backend()
		if err != nil {
			rndcErr = err
			return
		}
		var svc interface {
			frontend.HistoryChecker
			frontend.ServerStatusReader
		} = s.Service("")
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		// Probes come every few seconds: counted, but logged at debug only.
		// Its last write failed and its directory still takes no write
		// (docs/history.md): changes are made, but recorded only in the
		// log.
		histErr = svc.CheckHistory()
		_, rndcErr = svc.ServerStatus(a.Quiet(ctx))
		if le := (*zonemodel.ServiceError)(nil); errors.As(rndcErr, &le) && le.Err != nil {
			rndcErr = le.Err // the check names named's own error
		}
		a.RNDCLog.Debug("readiness probe", zap.String("command", "status"), zap.Error(rndcErr))
	}()
	wg.Wait()

	checks := []string{}
	if dirErr != nil {
		checks = append(checks, "zone_dir_accessible: "+a.ZoneDir)
		a.Logger.Warn("readiness check failed", zap.String("check", "zone_dir_accessible"), zap.Error(dirErr))
	}
	if rndcErr != nil {
		checks = append(checks, "rndc_error: "+rndcErr.Error())
		a.Logger.Warn("readiness check failed", zap.String("check", "rndc_error"), zap.Error(rndcErr))
	}
	if histErr != nil {
		checks = append(checks, "history_writable: "+histErr.Error())
		a.Logger.Warn("readiness check failed", zap.String("check", "history_writable"), zap.Error(histErr))
	}
	status := http.StatusOK
	if len(checks) > 0 {
		status = http.StatusServiceUnavailable
	}
	var notLoaded []string
	// /ready answers without a token (probes send none): zone names and
	// BIND's reasons are shown only to a request authenticated as an
	// identity that may do server-wide operations.
	if id := a.identity(r); id == nil || !id.Grant.AllowsServer() {
		WriteJSON(w, status, apitypes.Readiness{Checks: checks, Ready: len(checks) == 0})
		return nil
	}
	if s, err := a.Backend(); err == nil {
		var svc frontend.NotLoadedLister = s.Service("")
		for _, f := range svc.NotLoaded() {
			notLoaded = append(notLoaded, f.Zone+": "+f.Detail)
		}
	}
	WriteJSON(w, status, apitypes.Readiness{Checks: checks, Ready: len(checks) == 0, ZonesNotLoaded: notLoaded})
	return nil
}

func (a *API) handleServerStatus(w http.ResponseWriter, r *http.Request, _ Params) error {
	s, err := a.services()
	if err != nil {
		return err
	}
	var svc frontend.ServerStatusReader = s.Service("")
	st, err := svc.ServerStatus(r.Context())
	if err != nil {
		return ServiceFailure("", err)
	}
	WriteJSON(w, http.StatusOK, serverStatusBody{
		Status: st.Raw, Version: st.Version, BootTime: st.BootTime, LastConfigured: st.LastConfigured,
		NumberOfZones: st.NumberOfZones, DebugLevel: st.DebugLevel, XfersRunning: st.XfersRunning,
		XfersDeferred: st.XfersDeferred, SOAQueries: st.SOAQueries, QueryLogging: st.QueryLogging,
		RecursiveClients: st.RecursiveClients, TCPClients: st.TCPClients, ServerUp: st.ServerUp, Fields: st.Fields,
	})
	return nil
}

// reconcileBody is the answer of POST /api/v1/server/reconcile.
type reconcileBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	*zonemodel.ReconcileReport
}

// handleReconcile reconciles on demand: it settles pending intents,
// discards a torn index line, adopts zones named serves with their file
// that the index lost, moves aside files no zone uses, and reports indexed
// zones named does not serve. With views, it does so for every view, each
// item of the report naming its view.
func (a *API) handleReconcile(w http.ResponseWriter, r *http.Request, _ Params) error {
	s, err := a.services()
	if err != nil {
		return err
	}
	rep, err := s.Reconcile(r.Context(), true)
	if err != nil {
		return LifecycleFailure("", err)
	}
	msg := "nothing to repair"
	if len(rep.Fixed) > 0 || len(rep.Pending) > 0 || len(rep.Problems) > 0 {
		msg = "reconciled: see fixed, pending and problems"
	}
	WriteJSON(w, http.StatusOK, reconcileBody{Success: true, Message: msg, ReconcileReport: rep})
	return nil
}
