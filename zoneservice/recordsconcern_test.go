package zoneservice

import (
	"reflect"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/inventory"
)

// TestRecordsReachNoLifecycle: the record concern (Records) holds none of
// the zone lifecycle's or the recovery's parts: no field is the Service,
// the zone store or a role of it (Store, Locks, Index, Intents, Files),
// the full control channel, the Directory, the catalog or the inventory,
// and no interface field has a method of those roles or of the zone
// commands but the reads records need (zonestatus and showzone, to
// explain a refusal; a zone's file, for the history), so a record
// operation cannot reach them.
func TestRecordsReachNoLifecycle(t *testing.T) {
	forbidden := []reflect.Type{
		reflect.TypeFor[*Service](), reflect.TypeFor[Store](), reflect.TypeFor[Locks](),
		reflect.TypeFor[Index](), reflect.TypeFor[Intents](), reflect.TypeFor[Files](), reflect.TypeFor[Control](),
		reflect.TypeFor[*Directory](), reflect.TypeFor[*catalog.Catalog](), reflect.TypeFor[*inventory.Inventory](),
	}
	lifecycle := map[string]bool{}
	for _, it := range []reflect.Type{reflect.TypeFor[Locks](), reflect.TypeFor[Index](), reflect.TypeFor[Intents](), reflect.TypeFor[Files](), reflect.TypeFor[Control]()} {
		for i := range it.NumMethod() {
			lifecycle[it.Method(i).Name] = true
		}
	}
	// What the record concern asks named (why a change was refused) and
	// reads of the zone directory (a zone's file, for the history).
	for _, m := range []string{"ZoneStatus", "ShowZoneStatement", "ReadFile"} {
		delete(lifecycle, m)
	}
	rt := reflect.TypeFor[Records]()
	if rt.NumField() == 0 {
		t.Fatal("Records has no field")
	}
	for i := range rt.NumField() {
		f := rt.Field(i)
		for _, bad := range forbidden {
			if f.Type == bad {
				t.Errorf("Records.%s is a %s, a part of the zone lifecycle", f.Name, bad)
			}
		}
		if f.Type.Kind() != reflect.Interface {
			continue
		}
		for j := range f.Type.NumMethod() {
			if m := f.Type.Method(j).Name; lifecycle[m] {
				t.Errorf("Records.%s (%s) has %s, a method of the zone lifecycle's parts", f.Name, f.Type, m)
			}
		}
	}
}
