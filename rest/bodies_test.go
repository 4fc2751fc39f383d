package rest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fillAll sets every field reachable from v to a non-zero value: strings
// "x", numbers 1, booleans true, pointers to filled values, slices and
// maps of one filled element.
func fillAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillAll(v.Index(0))
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(k)
		fillAll(e)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i))
			}
		}
	}
}

// TestCreateRequestWireAndModelStayConvertible pins the two shapes of a
// create request: apitypes.CreateZone is the wire type (the Go client's
// too, omitempty where the client may leave a field out) and
// zonemodel.CreateZoneRequest the model type, whose JSON form the zone
// service fingerprints for retries, so it keeps its own tags and cannot be
// an alias. With every field set, the body converted by createRequestOf
// encodes exactly as the wire body: a field added to one side only, or
// one the conversion drops, fails here.
func TestCreateRequestWireAndModelStayConvertible(t *testing.T) {
	var wire createZoneRequest
	fillAll(reflect.ValueOf(&wire).Elem())
	model := createRequestOf(&wire)
	w, err := json.Marshal(&wire)
	if err != nil {
		t.Fatal(err)
	}
	m, err := json.Marshal(model)
	if err != nil {
		t.Fatal(err)
	}
	if string(w) != string(m) {
		t.Fatalf("the wire and model create requests differ:\nwire  %s\nmodel %s", w, m)
	}
}
