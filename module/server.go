package module

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// readyTimeout bounds the readiness probe's rndc round trip.
const readyTimeout = 3 * time.Second

func (h *Handler) handleHealth(w http.ResponseWriter, r *http.Request, _ params) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "healthy", "version": Version})
}

// handleReady checks, concurrently, that the zone directory is a writable
// directory and that named answers `status` on the control channel.
func (h *Handler) handleReady(w http.ResponseWriter, r *http.Request, _ params) {
	var (
		wg      sync.WaitGroup
		dirErr  error
		rndcErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		dirErr = checkZoneDir(h.zoneDir)
	}()
	go func() {
		defer wg.Done()
		b, err := h.getBackend()
		if err != nil {
			rndcErr = err
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		// Probes come every few seconds: counted, but logged at debug only.
		_, rndcErr = b.rndc.Status(quiet(ctx))
		h.rndcLog.Debug("readiness probe", zap.String("command", "status"), zap.Error(rndcErr))
	}()
	wg.Wait()

	checks := []string{}
	if dirErr != nil {
		checks = append(checks, "zone_dir_accessible: "+h.zoneDir)
		h.logger.Warn("readiness check failed", zap.String("check", "zone_dir_accessible"), zap.Error(dirErr))
	}
	if rndcErr != nil {
		checks = append(checks, "rndc_error: "+rndcErr.Error())
		h.logger.Warn("readiness check failed", zap.String("check", "rndc_error"), zap.Error(rndcErr))
	}
	status := http.StatusOK
	if len(checks) > 0 {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, map[string]any{"ready": len(checks) == 0, "checks": checks})
}

// checkZoneDir reports whether dir is a directory this process can write.
func checkZoneDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	return syscall.Access(dir, 0x2|0x1) // W_OK|X_OK
}

// serverStatusBody is the answer of GET /api/v1/server/status: the raw
// text of `rndc status` and the fields parsed from it.
type serverStatusBody struct {
	Status           string            `json:"status"`
	Version          string            `json:"version,omitempty"`
	BootTime         string            `json:"bootTime,omitempty"`
	LastConfigured   string            `json:"lastConfigured,omitempty"`
	NumberOfZones    int               `json:"numberOfZones"`
	DebugLevel       int               `json:"debugLevel"`
	XfersRunning     int               `json:"xfersRunning"`
	XfersDeferred    int               `json:"xfersDeferred"`
	SOAQueries       int               `json:"soaQueriesInProgress"`
	QueryLogging     string            `json:"queryLogging,omitempty"`
	RecursiveClients string            `json:"recursiveClients,omitempty"`
	TCPClients       string            `json:"tcpClients,omitempty"`
	ServerUp         bool              `json:"serverUp"`
	Fields           map[string]string `json:"fields"`
}

func (h *Handler) handleServerStatus(w http.ResponseWriter, r *http.Request, _ params) {
	b, ok := h.backendOr500(w)
	if !ok {
		return
	}
	st, err := b.rndc.Status(r.Context())
	if err != nil {
		h.commandFailed(w, "status", "", err)
		return
	}
	writeJSON(w, http.StatusOK, serverStatusBody{
		Status: st.Raw, Version: st.Version, BootTime: st.BootTime, LastConfigured: st.LastConfigured,
		NumberOfZones: st.NumberOfZones, DebugLevel: st.DebugLevel, XfersRunning: st.XfersRunning,
		XfersDeferred: st.XfersDeferred, SOAQueries: st.SOAQueries, QueryLogging: st.QueryLogging,
		RecursiveClients: st.RecursiveClients, TCPClients: st.TCPClients, ServerUp: st.ServerUp, Fields: st.Fields,
	})
}

// backendOr500 returns the backend or answers 500 when it cannot be set up
// (unreadable key file, missing zone directory).
//
// The first time in the process it also reconciles the zone directory
// with named (startupReconcile).
func (h *Handler) backendOr500(w http.ResponseWriter) (*backend, bool) {
	b, err := h.getBackend()
	if err != nil {
		h.logger.Error("backend unavailable", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return nil, false
	}
	h.startupReconcile(context.Background(), b)
	return b, true
}

// conflictErrs are BIND's short error texts that describe the zone's state
// rather than a failure of BIND: they answer 409.
var conflictErrs = map[string]string{
	"already exists": "",
	"already frozen": "",
	"not dynamic":    "the zone does not accept dynamic updates, so it cannot be frozen",
	"dynamic zone":   "the zone accepts dynamic updates: freeze it before reloading (thaw reloads the file too)",
	"not frozen":     "",
}

// commandFailed answers a failed control command: 404 when BIND does not
// know the zone, 409 for state conflicts, else 500 "Bad Gateway" naming
// the command and BIND's text. (control has logged the failure.)
func (h *Handler) commandFailed(w http.ResponseWriter, command, zone string, err error) {
	var re *rndc.Error
	switch {
	case rndc.IsNotFound(err) && zone != "" && command != "addzone":
		// For addzone, "not found" names something the zone refers to
		// (a dnssec-policy, a key), not the zone.
		writeError(w, http.StatusNotFound, "zone %s not found", zone)
	case errors.As(err, &re):
		if hint, ok := conflictErrs[re.Err]; ok {
			msg := "rndc " + command + " " + zone + ": " + re.Err
			if hint != "" {
				msg += ": " + hint
			}
			writeError(w, http.StatusConflict, "%s", msg)
			return
		}
		writeBadGateway(w, "rndc %s failed: %s", command, describe(re))
	case errors.Is(err, rndc.ErrAuth):
		writeBadGateway(w, "rndc %s failed: named rejected the rndc key (check the key name, algorithm and secret)", command)
	default:
		writeBadGateway(w, "rndc %s failed: %v", command, err)
	}
}

// isNotLoaded reports whether BIND knows the zone but has not loaded it
// (a secondary before its first transfer, or a zone whose file failed to
// load).
func isNotLoaded(err error) bool {
	var re *rndc.Error
	return errors.As(err, &re) && strings.Contains(re.Err+" "+re.Text, "not loaded")
}

// describe formats BIND's short error and its longer text.
func describe(re *rndc.Error) string {
	if re.Text != "" && re.Text != re.Err {
		return re.Err + ": " + re.Text
	}
	return re.Err
}
