package reqlog

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// serveBoth answers one request with h through a Recorder, held
// (Hold, then Release) and not, and returns each answer as sent, with
// its Date line dropped and its header lines sorted.
func serveBoth(t *testing.T, h func(w http.ResponseWriter)) (held, unheld string) {
	t.Helper()
	for _, hold := range []bool{true, false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &Recorder{ResponseWriter: w}
			if hold {
				rec.Hold()
			}
			h(rec)
			if hold {
				rec.Release()
			}
		}))
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		b, _ := io.ReadAll(bufio.NewReader(c))
		c.Close()
		srv.Close()
		head, body, _ := strings.Cut(string(b), "\r\n\r\n")
		lines := strings.Split(head, "\r\n")
		hdr := slices.DeleteFunc(lines[1:], func(l string) bool { return strings.HasPrefix(l, "Date: ") })
		slices.Sort(hdr)
		got := lines[0] + "\r\n" + strings.Join(hdr, "\r\n") + "\r\n\r\n" + body
		if hold {
			held = got
		} else {
			unheld = got
		}
	}
	return held, unheld
}

// TestHoldSendsWhatNetHTTPSends: a held answer is the answer net/http
// sends unheld (header lines in any order, Date aside), for the shapes
// a handler can give it.
func TestHoldSendsWhatNetHTTPSends(t *testing.T) {
	cases := map[string]func(w http.ResponseWriter){
		"declared trailer": func(w http.ResponseWriter) {
			w.Header().Set("Trailer", "X-Sum")
			w.WriteHeader(201)
			_, _ = w.Write([]byte("hello"))
			w.Header().Set("X-Sum", "abc")
		},
		"trailer by prefix": func(w http.ResponseWriter) {
			w.WriteHeader(201)
			_, _ = w.Write([]byte("hello"))
			w.Header().Set(http.TrailerPrefix+"X-Sum", "abc")
		},
		"1xx after the final status": func(w http.ResponseWriter) {
			w.WriteHeader(201)
			w.WriteHeader(103)
			_, _ = w.Write([]byte("hello"))
		},
		"own Content-Length": func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "5")
			w.WriteHeader(200)
			_, _ = w.Write([]byte("hello"))
		},
		"204 with a body": func(w http.ResponseWriter) {
			w.WriteHeader(204)
			_, _ = w.Write([]byte("x"))
		},
		"sniffed type": func(w http.ResponseWriter) { _, _ = w.Write([]byte("<html>hi</html>")) },
		"flushed 204": func(w http.ResponseWriter) {
			w.Header().Set("X-PDNS-Old-Serial", "1")
			w.WriteHeader(204)
			_ = http.NewResponseController(w).Flush()
		},
		"flushed mid-body": func(w http.ResponseWriter) {
			_, _ = w.Write([]byte("a"))
			_ = http.NewResponseController(w).Flush()
			_, _ = w.Write([]byte("b"))
		},
	}
	for _, sizes := range [][]int{{2048}, {2000, 48}, {2000, 49}, {2049}, {1000, 1000, 1000}} {
		cases[fmt.Sprint("body of ", sizes)] = func(w http.ResponseWriter) {
			for _, n := range sizes {
				_, _ = w.Write([]byte(strings.Repeat("a", n)))
			}
		}
	}
	for name, h := range cases {
		if held, unheld := serveBoth(t, h); held != unheld {
			t.Errorf("%s:\nheld   %.300q\nunheld %.300q", name, held, unheld)
		}
	}
}
