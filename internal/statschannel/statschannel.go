// Package statschannel reads named's statistics channel over HTTP: the
// URL of its zone list from zone_api's statistics_channel option, and the
// one GET of the channel, which the inventory (the zone list, given as its
// fetch) and the PowerDNS API (the server counters) are given by the Caddy
// glue: neither does I/O of its own.
package statschannel

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// MaxZonesBytes bounds the statistics channel's answer read (about 170
// bytes a zone: 64 MiB is some 390,000 zones).
const MaxZonesBytes = 64 << 20

// URL returns the URL of the statistics channel's zone list for the
// statistics_channel option: "host:port" or an http:// URL of the
// channel.
func URL(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if !strings.Contains(v, "://") {
		if _, _, err := net.SplitHostPort(v); err != nil {
			return "", fmt.Errorf("statistics_channel %q: %v (want host:port, e.g. 127.0.0.1:8053)", v, err)
		}
		v = "http://" + v
	}
	if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
		return "", fmt.Errorf("statistics_channel %q: want host:port or an http:// URL", v)
	}
	return strings.TrimSuffix(v, "/") + "/json/v1/zones", nil
}

// Get returns the HTTP GET of url on named's statistics channel,
// its answer read up to max bytes: the only I/O of the channel (the
// inventory's zone list, the PowerDNS API's server counters).
func Get(url string, timeout time.Duration, max int64) func(context.Context) ([]byte, error) {
	client := &http.Client{Timeout: timeout}
	return func(ctx context.Context) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return io.ReadAll(io.LimitReader(resp.Body, max))
	}
}

// Open is Get, but returns the answer's body as it is read (up to max
// bytes), for a reader that parses it as it comes (the inventory's zone
// list: some 17 MB at 100,000 zones, not held whole). The caller closes it.
func Open(url string, timeout time.Duration, max int64) func(context.Context) (io.ReadCloser, error) {
	client := &http.Client{Timeout: timeout}
	return func(ctx context.Context) (io.ReadCloser, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, max), resp.Body}, nil
	}
}

// Server returns the read of named's server counters
// (/json/v1/server, beside the zone list at zonesURL), up to 1 MiB; nil
// without a statistics channel.
func Server(zonesURL string) func(context.Context) ([]byte, error) {
	if zonesURL == "" {
		return nil
	}
	return Get(strings.TrimSuffix(zonesURL, "/zones")+"/server", 10*time.Second, 1<<20)
}
