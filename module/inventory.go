package module

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// maxStatsBytes bounds the statistics channel's answer read (about 170
// bytes a zone: 64 MiB is some 390,000 zones).
const maxStatsBytes = 64 << 20

// statsURL returns the URL of the statistics channel's zone list for the
// statistics_channel option: "host:port" or an http:// URL of the
// channel.
func statsURL(v string) (string, error) {
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

// newInventory returns the inventory of named's zones read from the
// statistics channel at url (nil when url is ""), built by
// zoneservice.NewInventory over c and store. Only the HTTP GET is the
// module's.
func newInventory(url string, timeout, refresh time.Duration, logger *zap.Logger, c *rndc.Client, store *zonestore.Store) *inventory.Inventory {
	if url == "" {
		return nil
	}
	client := &http.Client{Timeout: timeout}
	fetch := func(ctx context.Context) ([]byte, error) {
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
		return io.ReadAll(io.LimitReader(resp.Body, maxStatsBytes))
	}
	return zoneservice.NewInventory(fetch, maxStatsBytes, refresh, logger, c, store)
}
