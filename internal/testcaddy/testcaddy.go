// Package testcaddy starts the real Caddy build with the zone_api module
// for tests, in front of a named started by testbind: the API over plain
// HTTP on a loopback port, with optional extra sites and global options.
// The peer suites under integration/ (separate Go modules) use it; the
// main integration package has its own harness.
package testcaddy

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/internal/testbind"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary returns the caddy binary under test: $ZONEAPI_CADDY, or the one
// scripts/build.sh builds (and caches) from this source tree.
func Binary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		if binPath = os.Getenv("ZONEAPI_CADDY"); binPath != "" {
			return
		}
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		out, err := exec.Command("bash", filepath.Join(root, "scripts", "build.sh")).Output()
		if err != nil {
			binErr = fmt.Errorf("building caddy: %w", err)
			return
		}
		binPath = strings.TrimSpace(string(out))
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}

// Options shape the Caddyfile.
type Options struct {
	// Global are extra lines of the global options block.
	Global string
	// APIExtra are extra lines inside the zone_api block.
	APIExtra string
	// Sites are extra site blocks, after the API's.
	Sites string
	// Env is extra environment for caddy.
	Env []string
	// Handle is the path matcher of the API's handle block (default
	// /api/v1/*; /api* also routes the PowerDNS API's /api).
	Handle string
}

// Caddy is a running caddy process.
type Caddy struct {
	// Base is the API's base URL, http://127.0.0.1:<port>.
	Base string
	// Dir is caddy's temporary directory (config, log, data).
	Dir string

	cmd  *exec.Cmd
	done chan struct{}
}

// FreePort returns a free loopback TCP port.
func FreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start writes the Caddyfile and starts caddy; it is stopped by the
// test's cleanup.
func Start(tb testing.TB, ns *testbind.Server, opt Options) *Caddy {
	tb.Helper()
	bin := Binary(tb)
	c := &Caddy{Dir: tb.TempDir()}
	port := FreePort(tb)
	c.Base = fmt.Sprintf("http://127.0.0.1:%d", port)
	handle := opt.Handle
	if handle == "" {
		handle = "/api/v1/*"
	}
	conf := fmt.Sprintf(`{
	admin 127.0.0.1:%d
	persist_config off
	grace_period 2s
	log {
		output file %s
		format json
		level DEBUG
	}
	%s
}

http://127.0.0.1:%d {
	bind 127.0.0.1
	handle %s {
		zone_api {
			zone_dir %s
			rndc {
				server %s
				key_file %s
			}
			update_key_file %s
			dns_server %s
			%s
		}
	}
}

%s
`, FreePort(tb), filepath.Join(c.Dir, "caddy.log"), opt.Global, port, handle, ns.ZoneDir, ns.ControlAddr, ns.RNDCKeyFile,
		ns.TSIGKeyFile, ns.DNSAddr, opt.APIExtra, opt.Sites)
	cf := filepath.Join(c.Dir, "Caddyfile")
	if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", cf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+c.Dir, "XDG_CONFIG_HOME="+c.Dir, "HOME="+c.Dir)
	cmd.Env = append(cmd.Env, opt.Env...)
	out, err := os.Create(filepath.Join(c.Dir, "caddy.stderr"))
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting caddy: %v", err)
	}
	c.cmd, c.done = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); out.Close(); close(c.done) }()
	tb.Cleanup(c.Stop)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			tb.Fatalf("caddy exited at start:\n%s", c.Log())
		default:
		}
		if resp, err := http.Get(c.Base + "/api/v1/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return c
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("caddy did not answer health in time:\n%s", c.Log())
	return nil
}

// Stop ends caddy by its pid.
func (c *Caddy) Stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// Log returns what caddy logged so far.
func (c *Caddy) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "caddy.log"))
	s, _ := os.ReadFile(filepath.Join(c.Dir, "caddy.stderr"))
	return string(b) + string(s)
}
