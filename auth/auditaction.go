package auth

import "net/http"

// AuditAction names a route's mutation for the audit line (moved from
// module/auth.go): its operation label (op), else (a change without one)
// its method and template; "" for reads and for public routes.
func AuditAction(public bool, op, method, template string) string {
	switch {
	case public:
		return ""
	case op != "":
		return op
	case method == http.MethodGet || method == http.MethodHead:
		return ""
	}
	return method + " " + template
}
