package zoneservice

import (
	"strings"
	"testing"
)

// TestCatalogSettingsRefuseRoot: the root zone, a zone name since issue
// 28, is not a catalog zone (every zone would be below it), as it was
// refused before as no zone name.
func TestCatalogSettingsRefuseRoot(t *testing.T) {
	for _, z := range []string{".", ""} {
		if _, err := NewCatalogSettings(z, "", nil, nil, true); err == nil || !strings.Contains(err.Error(), "catalog zone") {
			t.Errorf("NewCatalogSettings(%q) = %v; want a catalog zone error", z, err)
		}
	}
	if _, err := NewCatalogSettings("catalog.test", "", nil, nil, true); err != nil {
		t.Errorf("NewCatalogSettings(catalog.test): %v", err)
	}
}
