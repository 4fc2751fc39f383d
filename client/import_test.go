package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestImportZoneFile: the zone file goes as the body with Content-Type
// text/dns and an Idempotency-Key, sent again with the same key and body
// after a 504; a 400 comes back as an *Error with the server's message.
func TestImportZoneFile(t *testing.T) {
	var types, keys, bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		types, keys, bodies = append(types, r.Header.Get("Content-Type")), append(keys, r.Header.Get("Idempotency-Key")), append(bodies, string(b))
		switch {
		case r.URL.Path != "/api/v1/zones/a.test/import":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"Bad Request","message":"zone b.test was not imported, nothing was written: line 3: unknown RR type 'FOO'","line":3}`)
		case len(keys) == 1:
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = io.WriteString(w, `{"error":"Gateway Timeout","message":"named did not answer addzone"}`)
		default:
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"success":true,"message":"Zone a.test imported successfully","details":"","records":4,"serial":7,"checkedBy":"named-checkzone"}`)
		}
	}))
	defer srv.Close()
	c, err := New(srv.URL, "tok", WithRetries(3, time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	const file = "$TTL 300\n@ SOA ns h 7 1 1 1 1\n"
	res, err := c.ImportZoneFile(context.Background(), "a.test", []byte(file))
	if err != nil || res.Records != 4 || res.Serial != 7 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] || bodies[0] != file || bodies[1] != file || types[0] != "text/dns" {
		t.Fatalf("attempts: types %q keys %q bodies %q", types, keys, bodies)
	}
	_, err = c.ImportZone(context.Background(), "b.test", ImportZone{CopyOf: "a.test"})
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || types[len(types)-1] != "application/json" {
		t.Fatalf("err = %v", err)
	}
}
