// Package testcaddy starts the real Caddy build with the zone_api module
// for tests, in front of a named started by testbind: the API over plain
// HTTP on a loopback port, with optional extra sites and global options.
// It is the one Caddy harness of the project: the integration package
// and the peer suites under integration/ (separate Go modules) use it.
package testcaddy

import (
	"fmt"
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

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
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
	bin, err := BinaryPath()
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// BinaryPath is Binary for callers without a testing.TB, such as TestMain.
func BinaryPath() (string, error) {
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
	return binPath, binErr
}

// Options shape the Caddyfile.
type Options struct {
	// Global are extra lines of the global options block.
	Global string
	// APIExtra are extra lines inside the zone_api block.
	APIExtra string
	// Sites are extra site blocks, after the API's.
	Sites string
	// SiteExtra are extra lines of the API's own site block, such as
	// another handle block on the same origin (the console's).
	SiteExtra string
	// Env is extra environment for caddy.
	Env []string
	// Binary is the caddy binary to run; default Binary's.
	Binary string
	// RNDCTimeout is the zone_api block's rndc timeout; default 10s.
	RNDCTimeout string
	// GracePeriod is Caddy's grace_period; default 2s.
	GracePeriod string
	// Handle is the path matcher of the API's handle block (default
	// /api/v1/*; /api* also routes the PowerDNS API's /api).
	Handle string
	// Control is the rndc server address caddy uses; default NS's (a
	// proxy in front of it, say).
	Control string
	// ZoneDir is the zone_api block's zone_dir; default NS's. A second
	// directory gives an instance a history of its own (one process
	// writes a directory's history).
	ZoneDir string
}

// Caddy is a caddy process serving the API over plain HTTP on a loopback
// port, with Caddy's metrics handler at /metrics and JSON logs (keys
// timestamp, level, target, message) at DEBUG in LogPath.
type Caddy struct {
	// Base is the API's base URL, http://127.0.0.1:<port>.
	Base string
	// Port is the API's port.
	Port int
	// AdminAddr is the address of Caddy's admin API.
	AdminAddr string
	// Dir is caddy's temporary directory (config, log, data).
	Dir string
	// NS is the named the API manages.
	NS *testbind.Server
	// Options are the options the Caddyfile was written with.
	Options Options

	tb   testing.TB
	cmd  *exec.Cmd
	done chan struct{}
	// killed: the last Stop had to end caddy with SIGKILL.
	killed bool
}

// FreePort returns a free loopback TCP port, reserved against other test
// processes until tb ends (testbind.ReservedPort: caddy listens with
// SO_REUSEPORT, so two caddies given the same port would both start and
// split the requests).
func FreePort(tb testing.TB) int {
	tb.Helper()
	return testbind.ReservedPort(tb)
}

// Start writes the Caddyfile and starts caddy; it is stopped by the
// test's cleanup.
func Start(tb testing.TB, ns *testbind.Server, opt Options) *Caddy {
	tb.Helper()
	c := New(tb, ns, opt)
	c.Start()
	return c
}

// New writes the Caddyfile of a caddy that Start starts (and starts again
// after Kill or Stop); the test's cleanup stops it.
func New(tb testing.TB, ns *testbind.Server, opt Options) *Caddy {
	tb.Helper()
	if opt.Binary == "" {
		opt.Binary = Binary(tb)
	}
	if opt.RNDCTimeout == "" {
		opt.RNDCTimeout = "10s"
	}
	if opt.GracePeriod == "" {
		opt.GracePeriod = "2s"
	}
	if opt.Handle == "" {
		opt.Handle = "/api/v1/*"
	}
	c := &Caddy{Dir: tb.TempDir(), NS: ns, Options: opt, tb: tb}
	c.Port = FreePort(tb)
	c.AdminAddr = fmt.Sprintf("127.0.0.1:%d", FreePort(tb))
	c.Base = fmt.Sprintf("http://127.0.0.1:%d", c.Port)
	if err := os.WriteFile(c.ConfigPath(), []byte(c.Caddyfile(opt.RNDCTimeout)), 0o600); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		c.Stop()
		if tb.Failed() {
			tb.Logf("the end of caddy's log (%s):\n%s", c.Dir, lastLines(c.Log(), 60))
		}
	})
	return c
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ConfigPath is the Caddyfile's path.
func (c *Caddy) ConfigPath() string { return filepath.Join(c.Dir, "Caddyfile") }

// LogPath is the path of caddy's JSON log.
func (c *Caddy) LogPath() string { return filepath.Join(c.Dir, "caddy.log") }

// Env is the environment caddy runs with: its own home and data
// directories under Dir, and Options.Env.
func (c *Caddy) Env() []string {
	env := append(os.Environ(), "XDG_DATA_HOME="+c.Dir, "XDG_CONFIG_HOME="+c.Dir, "HOME="+c.Dir)
	return append(env, c.Options.Env...)
}

// Caddyfile renders the Caddyfile with the given rndc timeout (tests of
// reloads vary it to make a real change).
func (c *Caddy) Caddyfile(rndcTimeout string) string {
	control := c.NS.ControlAddr
	if c.Options.Control != "" {
		control = c.Options.Control
	}
	zoneDir := c.NS.ZoneDir
	if c.Options.ZoneDir != "" {
		zoneDir = c.Options.ZoneDir
	}
	return fmt.Sprintf(`{
	admin %s
	persist_config off
	grace_period %s
	servers {
		protocols h1 h2c
	}
	log {
		output file %s
		format json {
			time_key timestamp
			time_format iso8601
			level_format lower
			name_key target
			message_key message
		}
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
				timeout %s
			}
			update_key_file %s
			dns_server %s
			%s
		}
	}
	handle /metrics {
		metrics
	}
	%s
}

%s
`, c.AdminAddr, c.Options.GracePeriod, c.LogPath(), c.Options.Global, c.Port, c.Options.Handle, zoneDir, control,
		c.NS.RNDCKeyFile, rndcTimeout, c.NS.TSIGKeyFile, c.NS.DNSAddr, c.Options.APIExtra, c.Options.SiteExtra, c.Options.Sites)
}

// Start runs caddy with the Caddyfile at ConfigPath and waits until the
// API answers health.
func (c *Caddy) Start() {
	tb := c.tb
	tb.Helper()
	cmd := exec.Command(c.Options.Binary, "run", "--config", c.ConfigPath(), "--adapter", "caddyfile")
	cmd.Env = c.Env()
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
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("caddy did not answer health in time:\n%s", c.Log())
}

// Stop ends caddy by its pid (SIGTERM, then SIGKILL after 10 s).
func (c *Caddy) Stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	c.killed = false
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		c.killed = true
	}
	forgetConnections()
}

// StopKilled reports whether the last Stop had to kill caddy: it had not
// exited 10 s after SIGTERM.
func (c *Caddy) StopKilled() bool { return c.killed }

// forgetConnections closes the idle keep-alive connections of Go's
// default HTTP client once a caddy has exited: a later test's caddy may
// be given the same port, and a request sent on a connection left over
// from this one would be answered with a reset (a POST is not retried).
func forgetConnections() { http.DefaultClient.CloseIdleConnections() }

// Kill ends caddy with SIGKILL, as a crash would, and waits for it to exit.
func (c *Caddy) Kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
	forgetConnections()
}

// Process is the running caddy process (nil before Start).
func (c *Caddy) Process() *os.Process {
	if c.cmd == nil {
		return nil
	}
	return c.cmd.Process
}

// Done is closed when the caddy process last started has exited.
func (c *Caddy) Done() <-chan struct{} { return c.done }

// Log returns what caddy logged so far.
func (c *Caddy) Log() string {
	b, _ := os.ReadFile(c.LogPath())
	s, _ := os.ReadFile(filepath.Join(c.Dir, "caddy.stderr"))
	return string(b) + string(s)
}
