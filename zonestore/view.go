package zonestore

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// viewsDir is the directory, inside the zone directory, that holds one
// directory per view (see ViewDir).
const viewsDir = "views"

// ViewDir returns the zone directory of a view's zones: <dir>/views/<view>.
// Each view has a Store of its own there (OpenView): its zone files,
// index, intents, locks and idempotency keys, so that two views may hold
// zones of the same name without their files, index entries or locks
// colliding. The zones of the server without views, or addressed without
// one, stay in dir itself, exactly as before views existed.
func ViewDir(dir, view string) string { return filepath.Join(dir, viewsDir, view) }

// OpenView returns the Store of a view's zones in ViewDir(dir, view),
// creating that directory. dir must exist, and view must be a valid view
// name (zonemodel.CheckViewName), so it is one path component.
func OpenView(dir, view string) (*Store, error) {
	if err := zonemodel.CheckViewName(view); err != nil {
		return nil, fmt.Errorf("opening the zone directory of view %q: %w", view, err)
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("opening zone directory: %w", err)
	}
	vd := ViewDir(dir, view)
	if err := os.MkdirAll(vd, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", vd, err)
	}
	return Open(vd)
}
