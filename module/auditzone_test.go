package module

import (
	"net/http"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestImportCopyAuditNamesTheZoneMade: the audit line of an import by
// copy names the zone the request makes ({name}), not the zone it copies
// (copyOf). Before the fix the copy's read check (Allow on copyOf) set the
// request's audited zone to copyOf, so POST /zones/new.test/import
// {"copyOf":"other.test"} was audited as an import of other.test.
func TestImportCopyAuditNamesTheZoneMade(t *testing.T) {
	h, _, toks := scopedHandler(t, fakeNamedAnswers{}, map[string]string{
		"tenant": "actions=zones,read zones=new.test",
	})
	core, logs := observer.New(zap.InfoLevel)
	h.authLog = zap.New(core)
	w := serveAs(h, toks["tenant"], "POST", "/api/v1/zones/new.test/import", `{"copyOf":"other.test"}`)
	if w.Code != http.StatusForbidden {
		t.Fatalf("copy of a zone outside the scope: %d %s, want 403", w.Code, w.Body)
	}
	audits := logs.FilterMessage("audit").All()
	if len(audits) != 1 {
		t.Fatalf("%d audit lines, want 1", len(audits))
	}
	if got := audits[0].ContextMap()["zone"]; got != "new.test" {
		t.Errorf("audit line of the import names zone %v, want new.test (the zone the request makes)", got)
	}
}
