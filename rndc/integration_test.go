package rndc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// startNamed starts a named and returns it with a Client for its control
// channel, built from the generated rndc.key through LoadConfig.
func startNamed(t testing.TB, alg string) (*testbind.Server, *Client) {
	t.Helper()
	s := testbind.Start(t, &testbind.Options{RNDCAlgorithm: alg})
	cfg, err := LoadConfig(s.RNDCConfFile)
	if err != nil {
		t.Fatalf("LoadConfig(%s): %v", s.RNDCConfFile, err)
	}
	key, err := cfg.Key("")
	if err != nil {
		t.Fatal(err)
	}
	return s, &Client{Addr: s.ControlAddr, Key: key, Timeout: 5 * time.Second}
}

// mustStatement parses a zone statement written by a test.
func mustStatement(t testing.TB, text string) *ZoneStatement {
	t.Helper()
	zs, err := ParseZoneStatement(text)
	if err != nil {
		t.Fatalf("ParseZoneStatement(%q): %v", text, err)
	}
	return zs
}

// primaryStatement is `zone "zone" { type primary; file "path"; };`.
func primaryStatement(zone, path string) *ZoneStatement {
	zs := &ZoneStatement{Name: zone}
	zs.Add("type", Word("primary"))
	zs.Add("file", Quoted(path))
	return zs
}

func addTestZone(t *testing.T, s *testbind.Server, c *Client, zone, extra string) string {
	t.Helper()
	path, err := s.WriteZone(zone, testbind.MinimalZone(zone, 2024010101))
	if err != nil {
		t.Fatal(err)
	}
	zs := mustStatement(t, fmt.Sprintf(`zone %q { type primary; file %q; %s};`, zone, path, extra))
	if _, err := c.AddZone(context.Background(), zs); err != nil {
		t.Fatalf("AddZone(%s): %v\n%s", zone, err, s.LogTail(10))
	}
	return path
}

func TestIntegrationZoneLifecycle(t *testing.T) {
	t.Parallel()
	s, c := startNamed(t, "")
	ctx := context.Background()

	var traceMu sync.Mutex
	var traced []map[string]any
	c.Trace = func(dir string, msg map[string]any) {
		traceMu.Lock()
		defer traceMu.Unlock()
		traced = append(traced, msg)
	}

	st, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if !st.ServerUp || !strings.Contains(st.Version, s.VersionToken) {
		t.Errorf("Status = %+v", st)
	}

	// A Client is safe for concurrent use.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Status(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Status: %v", err)
	}

	const zone = "lifecycle.test"
	path := addTestZone(t, s, c, zone, fmt.Sprintf(`allow-update { key %q; }; `, s.TSIGKeyName))

	zs, err := c.ZoneStatus(ctx, zone)
	if err != nil {
		t.Fatalf("ZoneStatus: %v", err)
	}
	if zs.Name != zone || zs.Type != "primary" || zs.Serial != 2024010101 || !zs.HasSerial ||
		!zs.Loaded || !zs.Dynamic || zs.Frozen || zs.Secure || !zs.Reconfigurable ||
		len(zs.Files) != 1 || zs.Files[0] != path || zs.Nodes != 3 {
		t.Errorf("ZoneStatus = %+v", zs)
	}

	// The rndc program is the oracle: same text.
	out, err := s.RNDC("zonestatus", zone)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != strings.TrimSpace(zs.Raw) {
		t.Errorf("native zonestatus differs from rndc program:\nnative:\n%s\nrndc:\n%s", zs.Raw, out)
	}

	show, err := c.ShowZone(ctx, zone)
	if err != nil {
		t.Fatalf("ShowZone: %v", err)
	}
	if !strings.HasPrefix(show, `zone "lifecycle.test"`) || !strings.Contains(show, path) {
		t.Errorf("ShowZone = %q", show)
	}

	if _, err := c.Freeze(ctx, zone); err != nil {
		t.Fatalf("Freeze: %v", err)
	}
	if zs, err := c.ZoneStatus(ctx, zone); err != nil || !zs.Frozen {
		t.Errorf("after Freeze: %+v, %v", zs, err)
	}
	var rerr *Error
	if _, err := c.Freeze(ctx, zone); !errors.As(err, &rerr) || rerr.Err != "already frozen" || rerr.Command != "freeze" {
		t.Errorf("second Freeze: %v", err)
	}
	if txt, err := c.Thaw(ctx, zone); err != nil || !strings.Contains(txt, "thaw") {
		t.Fatalf("Thaw = %q, %v", txt, err)
	}
	// named answers thaw before the zone's reload that clears the frozen
	// flag has run (seen under load: zonestatus in the same millisecond
	// still said frozen), so the status is read until it says thawed.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		zs, err = c.ZoneStatus(ctx, zone)
		if err != nil || !zs.Frozen || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || zs.Frozen {
		t.Errorf("after Thaw: %+v, %v", zs, err)
	}

	// named refuses to reload a dynamic zone from its file, once the
	// thaw's own load has finished (until then, under load, it queues the
	// reload).
	for i := 0; ; i++ {
		_, err := c.Reload(ctx, zone)
		if errors.As(err, &rerr) && rerr.Err == "dynamic zone" {
			break
		}
		if err != nil || i == 50 {
			t.Errorf("Reload(dynamic zone) = %v", err)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if txt, err := c.Reload(ctx, ""); err != nil || !strings.Contains(txt, "reload successful") {
		t.Errorf("Reload() = %q, %v", txt, err)
	}
	if txt, err := c.Notify(ctx, zone); err != nil || txt != "zone notify queued" {
		t.Errorf("Notify = %q, %v", txt, err)
	}

	// Second addzone: already exists, and nothing else is touched.
	_, err = c.AddZone(ctx, primaryStatement(zone, path))
	if !IsAlreadyExists(err) || IsNotFound(err) {
		t.Errorf("second AddZone: %v (IsAlreadyExists false)", err)
	}
	if !errors.As(err, &rerr) || rerr.Command != "addzone" || rerr.Result != ResultExists {
		t.Errorf("second AddZone error = %#v", err)
	}

	if _, err := c.DelZone(ctx, zone, true); err != nil {
		t.Fatalf("DelZone: %v", err)
	}
	_, err = c.ZoneStatus(ctx, zone)
	if !IsNotFound(err) || IsAlreadyExists(err) {
		t.Errorf("ZoneStatus after DelZone: %v (IsNotFound false)", err)
	}
	if !errors.As(err, &rerr) || rerr.Result != ResultNotFound || !strings.Contains(rerr.Text, "no matching zone") {
		t.Errorf("ZoneStatus after DelZone error = %#v", err)
	}
	if want := "rndc zonestatus: not found (no matching zone 'lifecycle.test' in any view)"; err.Error() != want {
		t.Errorf("error text = %q, want %q", err.Error(), want)
	}
	if _, err := c.ShowZone(ctx, "unknown.test"); !IsNotFound(err) {
		t.Errorf("ShowZone(unknown): %v", err)
	}
	if _, err := c.DelZone(ctx, "unknown.test", false); !IsNotFound(err) {
		t.Errorf("DelZone(unknown): %v", err)
	}

	// A zone name that would inject a command never reaches named.
	if _, err := c.ZoneStatus(ctx, "x.test; halt"); err == nil {
		t.Error("ZoneStatus accepted an injected zone name")
	}

	traceMu.Lock()
	defer traceMu.Unlock()
	if len(traced) == 0 {
		t.Fatal("Trace was never called")
	}
	secret := s.RNDCSecret
	for _, m := range traced {
		if _, ok := m["_auth"]; ok {
			t.Fatal("Trace received _auth")
		}
		if strings.Contains(fmt.Sprint(m), secret) {
			t.Fatal("Trace received the secret")
		}
	}
}

func TestIntegrationVariants(t *testing.T) {
	t.Parallel()
	s, c := startNamed(t, "hmac-sha384")
	ctx := context.Background()
	addTestZone(t, s, c, "static.test", "")
	addTestZone(t, s, c, "signed.test", fmt.Sprintf(`dnssec-policy default; inline-signing yes; key-directory %q; `, s.ZoneDir))

	zs, err := c.ZoneStatus(ctx, "static.test")
	if err != nil {
		t.Fatal(err)
	}
	if zs.Dynamic || zs.Frozen || zs.Secure {
		t.Errorf("static zone status = %+v", zs)
	}
	// named answers "up-to-date" when the file is unchanged and its load
	// is done, "queued" when it starts the load in the background (a zone
	// just added, on a busy machine): both are a successful reload.
	if txt, err := c.Reload(ctx, "static.test"); err != nil || txt != "zone reload up-to-date" && txt != "zone reload queued" {
		t.Errorf("Reload(static) = %q, %v", txt, err)
	}
	var rerr *Error
	if _, err := c.Freeze(ctx, "static.test"); !errors.As(err, &rerr) || rerr.Err != "not dynamic" {
		t.Errorf("Freeze(static) = %v", err)
	}

	// Signing happens in the background; wait for it. Each second
	// without it, LoadKeys asks named to run its key manager: BIND 9.18
	// now and then skips it for a zone just added with a dnssec-policy.
	deadline := time.Now().Add(30 * time.Second)
	for nudge := time.Now().Add(time.Second); ; time.Sleep(100 * time.Millisecond) {
		zs, err = c.ZoneStatus(ctx, "signed.test")
		if err != nil {
			t.Fatal(err)
		}
		if zs.Secure && zs.SignedSerial != 0 || time.Now().After(deadline) {
			break
		}
		if time.Now().After(nudge) {
			_, _ = c.LoadKeys(ctx, "signed.test")
			nudge = time.Now().Add(time.Second)
		}
	}
	if _, err := c.LoadKeys(ctx, "signed.test"); err != nil {
		t.Errorf("LoadKeys(signed) = %v", err)
	}
	if !zs.Secure || !zs.InlineSigning || zs.SignedSerial == 0 || zs.Serial != 2024010101 {
		t.Errorf("signed zone status = %+v", zs)
	}

	// addzone with a missing file fails with BIND's reason.
	_, err = c.AddZone(ctx, primaryStatement("missing.test", filepath.Join(s.ZoneDir, "nope.zone")))
	if !errors.As(err, &rerr) || rerr.Err != "file not found" {
		t.Errorf("AddZone(missing file) = %v", err)
	}
	// A bad zone name is refused before it is sent.
	if _, err := c.AddZone(ctx, primaryStatement("x.test halt", "x")); err == nil || errors.As(err, &rerr) {
		t.Errorf("AddZone(bad name) = %v", err)
	}
}

func TestIntegrationAlgorithms(t *testing.T) {
	t.Parallel()
	for _, alg := range Algorithms {
		t.Run(string(alg), func(t *testing.T) {
			t.Parallel()
			s, c := startNamed(t, string(alg))
			if c.Key.Algorithm != alg {
				t.Fatalf("key algorithm = %s", c.Key.Algorithm)
			}
			st, err := c.Status(context.Background())
			if err != nil {
				t.Fatalf("Status: %v\n%s", err, s.LogTail(10))
			}
			if !st.ServerUp {
				t.Errorf("ServerUp false: %q", st.Raw)
			}
		})
	}
}

func TestIntegrationAuthFailures(t *testing.T) {
	t.Parallel()
	s, c := startNamed(t, "hmac-sha256")
	ctx := context.Background()
	other, _ := NewKey("rndc-key", "hmac-sha256", "aGVsbG8gd29ybGQgdGhpcyBpcyBhIHdyb25nIGtleQ==")
	wrongAlg := c.Key
	wrongAlg.Algorithm = HMACSHA512
	// The key name is not on the wire (named tries each key of the controls
	// statement), so only the secret and the algorithm matter.
	cases := map[string]Key{"wrong secret": other, "wrong algorithm": wrongAlg}
	for name, key := range cases {
		t.Run(name, func(t *testing.T) {
			bad := &Client{Addr: c.Addr, Key: key, Timeout: 3 * time.Second}
			_, err := bad.Status(ctx)
			if !errors.Is(err, ErrAuth) {
				t.Fatalf("err = %v, want ErrAuth", err)
			}
			if errors.Is(err, syscall.ECONNREFUSED) {
				t.Fatal("auth failure looks like a refused connection")
			}
			if strings.Contains(err.Error(), s.RNDCSecret) || strings.Contains(err.Error(), key.SecretBase64()) {
				t.Fatal("error contains a secret")
			}
		})
	}
	// The good key still works afterwards.
	if _, err := c.Status(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestIntegrationNamedStopped(t *testing.T) {
	t.Parallel()
	s, c := startNamed(t, "")
	ctx := context.Background()
	s.Stop()
	_, err := c.Status(ctx)
	if err == nil {
		t.Fatal("Status succeeded with named stopped")
	}
	if errors.Is(err, ErrAuth) {
		t.Fatalf("named down reported as ErrAuth: %v", err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("err = %v, want ECONNREFUSED", err)
	}
	s.Restart(t)
	if _, err := c.Status(ctx); err != nil {
		t.Fatalf("Status after restart: %v", err)
	}
}

// BenchmarkZoneStatus compares the native client with the rndc program on
// the same named, in the same run.
func BenchmarkZoneStatus(b *testing.B) {
	s, c := startNamed(b, "")
	path, err := s.WriteZone("bench.test", testbind.MinimalZone("bench.test", 1))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.AddZone(context.Background(), primaryStatement("bench.test", path)); err != nil {
		b.Fatal(err)
	}
	var native, program time.Duration
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.ZoneStatus(context.Background(), "bench.test"); err != nil {
				b.Fatal(err)
			}
		}
		native = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("rndc-program", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.RNDC("zonestatus", "bench.test"); err != nil {
				b.Fatal(err)
			}
		}
		program = b.Elapsed() / time.Duration(b.N)
	})
	if native > 0 && program > 0 {
		b.Logf("\n| zonestatus | per op | ratio |\n|---|---|---|\n| native client | %v | 1.0 |\n| rndc program | %v | %.1fx |",
			native, program, float64(program)/float64(native))
	}
}

// TestIntegrationConnectionReuse: commands reuse an idle connection (one
// dial for many commands); a connection named closed while idle (here by
// a restart) is replaced without failing the command; MaxIdle < 0 and
// CloseIdle turn reuse off.
func TestIntegrationConnectionReuse(t *testing.T) {
	t.Parallel()
	s, c := startNamed(t, "")
	var dials atomic.Int32
	c.Dialer = &net.Dialer{Control: func(string, string, syscall.RawConn) error { dials.Add(1); return nil }}
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if _, err := c.Status(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("5 commands dialled %d times, want 1", n)
	}

	s.Stop()
	s.Restart(t)
	if _, err := c.Status(ctx); err != nil {
		t.Fatalf("command after a restart (stale idle connection): %v", err)
	}
	if n := dials.Load(); n != 2 {
		t.Errorf("dials after restart = %d, want 2", n)
	}

	c.CloseIdle()
	if _, err := c.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if n := dials.Load(); n != 3 {
		t.Errorf("dials after CloseIdle = %d, want 3", n)
	}

	c.MaxIdle = -1
	c.CloseIdle()
	for i := 0; i < 3; i++ {
		if _, err := c.Status(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := dials.Load(); n != 6 {
		t.Errorf("dials without reuse = %d, want 6", n)
	}

	// A command error leaves the connection usable.
	c.MaxIdle = 0
	if _, err := c.ZoneStatus(ctx, "nowhere.test"); !IsNotFound(err) {
		t.Fatalf("err = %v, want not found", err)
	}
	before := dials.Load()
	if _, err := c.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if dials.Load() != before {
		t.Error("a command error closed the connection")
	}
}

// TestIntegrationClose: after Close no connection is kept.
func TestIntegrationClose(t *testing.T) {
	t.Parallel()
	_, c := startNamed(t, "")
	ctx := context.Background()
	if _, err := c.Status(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.Status(ctx); err != nil {
		t.Fatalf("a closed client must still run commands: %v", err)
	}
	if _, ok := c.idle.Get(time.Hour); ok {
		t.Error("an idle connection was kept after Close")
	}
}
