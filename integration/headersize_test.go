package integration

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestHeaderSizeLimits pins what docs/api.md says about oversized request
// headers, which Go's HTTP server answers before any handler runs, with
// Caddy's default max_header_size (16 KiB): over HTTP/1.1, a header block
// up to 16 KiB is served and one over 20 KiB (16 KiB + Go's 4 KiB slack)
// gets 431 text/plain; over HTTP/2 the limit is advertised in
// SETTINGS_MAX_HEADER_LIST_SIZE (Go's client refuses to send more); a
// client that sends more anyway gets 431 text/html when the whole header
// block came in one frame, and otherwise (it goes on after the limit, or
// one field is longer than the limit) the connection ends (GOAWAY) with
// no status.
func TestHeaderSizeLimits(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	h1 := new(http.Protocols)
	h1.SetHTTP1(true)
	cl := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Protocols: h1}}
	for _, tc := range []struct {
		size   int
		status int
		ctype  string
	}{{15 << 10, 200, "application/json"}, {21 << 10, 431, "text/plain"}, {2 << 20, 431, "text/plain"}} {
		req, _ := http.NewRequest("GET", c.Base+"/api/v1/zones", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("X-Big", strings.Repeat("a", tc.size))
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatalf("HTTP/1.1 %d bytes: %v", tc.size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
			t.Errorf("HTTP/1.1 %d bytes: %d %s, want %d %s", tc.size, resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, tc.ctype)
		}
	}

	addr := strings.TrimPrefix(c.Base, "http://")
	// A header list over the limit that fits in one HEADERS frame (20
	// fields of 1,000 bytes: 20 kB decoded, 13 kB encoded): 431
	// text/html.
	var many []hpack.HeaderField
	for i := 0; i < 20; i++ {
		many = append(many, hpack.HeaderField{Name: "x-field-" + string(rune('a'+i)), Value: strings.Repeat("e", 1000)})
	}
	if status, ctype, ended := h2cRequest(t, addr, many); status != 431 || !strings.HasPrefix(ctype, "text/html") || ended {
		t.Errorf("HTTP/2 header list of 20 kB: status %d %q, connection ended %v; want 431 text/html", status, ctype, ended)
	}
	// A header list that goes on (CONTINUATION) after the limit was hit:
	// the connection ends (GOAWAY PROTOCOL_ERROR), no status.
	var more []hpack.HeaderField
	for i := 0; i < 40; i++ {
		more = append(more, hpack.HeaderField{Name: "x-field-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Value: strings.Repeat("v", 1000)})
	}
	if status, _, ended := h2cRequest(t, addr, more); status != 0 || !ended {
		t.Errorf("HTTP/2 header list of 40 kB: status %d, connection ended %v; want no status and the connection ended", status, ended)
	}
	// One field longer than the limit: the connection ends (GOAWAY
	// COMPRESSION_ERROR), no status.
	one := []hpack.HeaderField{{Name: "x-big", Value: strings.Repeat("a", 40<<10)}}
	if status, _, ended := h2cRequest(t, addr, one); status != 0 || !ended {
		t.Errorf("HTTP/2 one field of 40 kB: status %d, connection ended %v; want no status and the connection ended", status, ended)
	}
	// Within the limit: served.
	small := []hpack.HeaderField{{Name: "authorization", Value: "Bearer " + testToken}}
	if status, ctype, _ := h2cRequest(t, addr, small); status != 200 || ctype != "application/json" {
		t.Errorf("HTTP/2 small request: %d %q", status, ctype)
	}
}

// h2cRequest sends GET /api/v1/zones with extra header fields over
// HTTP/2 with prior knowledge, ignoring the advertised header list limit,
// and returns the answer's status and content type (0 when none came) and
// whether the server ended the connection (GOAWAY or EOF).
func h2cRequest(t *testing.T, addr string, extra []hpack.HeaderField) (status int, ctype string, ended bool) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	fr.ReadMetaHeaders = hpack.NewDecoder(65536, nil)
	fr.MaxHeaderListSize = 1 << 20
	_ = fr.WriteSettings()
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range append([]hpack.HeaderField{
		{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "http"},
		{Name: ":authority", Value: addr}, {Name: ":path", Value: "/api/v1/zones"},
	}, extra...) {
		_ = enc.WriteField(f)
	}
	b := block.Bytes()
	const frame = 16 << 10
	first := b[:min(frame, len(b))]
	_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: first, EndStream: true, EndHeaders: len(b) <= frame})
	for rest := b[len(first):]; len(rest) > 0; {
		n := min(frame, len(rest))
		_ = fr.WriteContinuation(1, n == len(rest), rest[:n])
		rest = rest[n:]
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return status, ctype, true
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			for _, hf := range f.Fields {
				switch hf.Name {
				case ":status":
					status = atoi(hf.Value)
				case "content-type":
					ctype = hf.Value
				}
			}
			if f.StreamEnded() {
				return status, ctype, false
			}
		case *http2.DataFrame:
			if f.StreamEnded() {
				return status, ctype, false
			}
		case *http2.GoAwayFrame:
			return status, ctype, true
		case *http2.RSTStreamFrame:
			return status, ctype, false
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
