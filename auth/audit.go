package auth

import (
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/internal/logsafe"
)

// AuditFields are the fields of the audit line of one mutation (zone_api
// logs it at info): who (st's identity, else anonymous), what (op),
// which zone and view, the outcome (status, and success below 400, else
// error) and the request's id.
func AuditFields(st *State, op string, status int, requestID string) []zap.Field {
	principal := "anonymous"
	if st.ID != nil {
		principal = st.ID.ID
	}
	result := "success"
	if status >= 400 {
		result = "error"
	}
	fields := []zap.Field{zap.String("principal", logsafe.Text(principal)), zap.String("action", op), zap.String("zone", st.Zone),
		zap.Int("status", status), zap.String("result", result), zap.String("request_id", requestID)}
	if st.View != "" {
		fields = append(fields, zap.String("view", st.View))
	}
	return fields
}
