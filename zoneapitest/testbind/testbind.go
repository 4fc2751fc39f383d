// Package testbind starts a real BIND 9 named for tests: a generated
// named.conf in a temporary directory, freshly generated rndc and TSIG keys,
// and free loopback ports for DNS (UDP and TCP) and the rndc control channel.
//
// It is meant for tests only. Start fails the test (it does not skip it)
// when named is not installed, because a silently skipped integration test
// hides real breakage.
package testbind

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Well-known program locations; overridable through the environment
// variables TESTBIND_NAMED and TESTBIND_RNDC.
var (
	NamedPath = envOr("TESTBIND_NAMED", "/usr/sbin/named")
	RNDCPath  = envOr("TESTBIND_RNDC", "/usr/sbin/rndc")
)

// Key names used in the generated configuration.
const (
	RNDCKeyName = "rndc-key"
	TSIGKeyName = "zoneapi-update"
)

// StartTimeout bounds how long Start waits for named to become ready.
var StartTimeout = 15 * time.Second

// Server is a running named started for a test.
type Server struct {
	Dir         string // temp state dir (named.conf, keys, named.pid, logs)
	ZoneDir     string // Dir/zones: where zone files live
	DNSAddr     string // "127.0.0.1:<port>" (UDP+TCP)
	ControlAddr string // "127.0.0.1:<port>" rndc control channel
	ConfFile    string // path of the generated named.conf
	LogFile     string // path of named's log (its stderr with -g)

	// StatsAddr is "127.0.0.1:<port>", named's statistics channel
	// (statistics-channels; /json/v1/zones lists every zone of every
	// view).
	StatsAddr string

	// RNDCKeyFile is the path of rndc.key:
	// key "rndc-key" { algorithm hmac-sha256; secret "..."; };
	RNDCKeyFile string
	// RNDCConfFile is an rndc.conf that includes RNDCKeyFile and sets
	// default-key, default-server and default-port for this server.
	RNDCConfFile                           string
	RNDCKeyName, RNDCAlgorithm, RNDCSecret string

	// TSIGKeyFile is the path of the TSIG update key file (same BIND
	// syntax), key name "zoneapi-update", hmac-sha256.
	TSIGKeyFile                            string
	TSIGKeyName, TSIGAlgorithm, TSIGSecret string

	// ViewKeys are the TSIG keys of the views that asked for one
	// (View.Key), by view name.
	ViewKeys map[string]ViewKey

	// VersionToken is the unique `version` string this named answers to
	// "version.bind CH TXT"; used to check the DNS port is really ours.
	// Empty with Options.Config (its named.conf sets no version).
	VersionToken string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	logf    *os.File
	dnsPort int
	ctlPort int

	statsPort int // named's statistics channel
	opts      Options
}

// Options tunes the generated configuration.
type Options struct {
	// RNDCAlgorithm is the HMAC algorithm of the rndc key
	// (default hmac-sha256).
	RNDCAlgorithm string
	// ExtraConfig is appended verbatim to named.conf.
	ExtraConfig string
	// ExtraOptions is inserted verbatim inside the options { } block.
	ExtraOptions string
	// DNSPort and ControlPort, when both set, are the ports to use
	// (from FreePorts), e.g. so that two servers can name each other in
	// their configurations; Start then does not retry on other ports.
	DNSPort, ControlPort int
	// Views, when set, puts every zone in views (see View): ExtraConfig
	// then must not hold zone statements outside them. Default: no views.
	Views []View
	// BeforeStart, if set, runs once the directory, keys and view keys
	// are made and before named starts, e.g. to write the zone files
	// that ExtraConfig or a View's Config name (WriteViewZone).
	BeforeStart func(s *Server) error
	// Config, if set, writes named.conf (s.ConfFile) instead of the
	// generated configuration: a configuration under test, such as the
	// one scripts/devconf.sh writes. It runs once the ports are chosen
	// (DNSAddr, ControlAddr, StatsAddr; again for other ports when one
	// was taken), and the named.conf it writes must listen on them, keep
	// its state in Dir and accept RNDCKeyFile's key on the control
	// channel. ExtraOptions, ExtraConfig and Views are not used; named is
	// ready when its control channel and DNS port answer, whatever its
	// version.bind says.
	Config func(s *Server) error
}

// FreePorts returns a loopback port free for both TCP and UDP (DNS) and
// a free TCP port (control channel), for Options.DNSPort and ControlPort.
func FreePorts() (dnsPort, ctlPort int, err error) { return freePorts() }

// Start generates a configuration and starts named, waiting until both
// the control channel and the DNS port answer and named has loaded its
// zones. It fails the test with the tail of named's log on failure, and
// registers tb.Cleanup(s.Stop).
// It is a little over 80 lines: one straight sequence (options, keys,
// directory, ports, config, start, wait) that reads best in order.
func Start(tb testing.TB, opts *Options) *Server {
	tb.Helper()
	if _, err := os.Stat(NamedPath); err != nil {
		tb.Fatalf("testbind: named is not installed at %s (install bind9, or set TESTBIND_NAMED): %v", NamedPath, err)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.RNDCAlgorithm == "" {
		o.RNDCAlgorithm = "hmac-sha256"
	}
	o.RNDCAlgorithm = strings.ToLower(o.RNDCAlgorithm)

	// Short base dir: unix socket paths and log lines stay readable.
	dir, err := os.MkdirTemp("", "testbind-")
	if err != nil {
		tb.Fatalf("testbind: %v", err)
	}
	tb.Cleanup(func() {
		// A failed test shows the end of named's log, which says what
		// named did meanwhile (CI keeps only the test's output).
		if tb.Failed() {
			tb.Logf("the end of named's log (%s):\n%s", dir, (&Server{LogFile: filepath.Join(dir, "named.log")}).LogTail(60))
		}
		if !tb.Failed() || os.Getenv("TESTBIND_KEEP") == "" {
			_ = os.RemoveAll(dir)
		}
	})

	s := &Server{
		Dir:           dir,
		ZoneDir:       filepath.Join(dir, "zones"),
		ConfFile:      filepath.Join(dir, "named.conf"),
		LogFile:       filepath.Join(dir, "named.log"),
		RNDCKeyFile:   filepath.Join(dir, "rndc.key"),
		RNDCConfFile:  filepath.Join(dir, "rndc.conf"),
		RNDCKeyName:   RNDCKeyName,
		RNDCAlgorithm: o.RNDCAlgorithm,
		RNDCSecret:    randomSecret(),
		TSIGKeyFile:   filepath.Join(dir, "tsig.key"),
		TSIGKeyName:   TSIGKeyName,
		TSIGAlgorithm: "hmac-sha256",
		TSIGSecret:    randomSecret(),
		VersionToken:  "testbind-" + randomHex(8),
		opts:          o,
	}
	if err := os.MkdirAll(s.ZoneDir, 0o755); err != nil {
		tb.Fatalf("testbind: %v", err)
	}
	if err := writeKey(s.RNDCKeyFile, s.RNDCKeyName, s.RNDCAlgorithm, s.RNDCSecret); err != nil {
		tb.Fatalf("testbind: %v", err)
	}
	if err := writeKey(s.TSIGKeyFile, s.TSIGKeyName, s.TSIGAlgorithm, s.TSIGSecret); err != nil {
		tb.Fatalf("testbind: %v", err)
	}
	if err := s.viewKeys(); err != nil {
		tb.Fatalf("testbind: %v", err)
	}
	if o.BeforeStart != nil {
		if err := o.BeforeStart(s); err != nil {
			tb.Fatalf("testbind: BeforeStart: %v", err)
		}
	}

	s.statsPort = ReservedPort(tb)
	s.StatsAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.statsPort))

	// Ports are picked by the kernel, then released and handed to named; a
	// concurrent process could grab one in between, so retry a few times.
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		dnsPort, ctlPort, err := o.DNSPort, o.ControlPort, error(nil)
		if dnsPort == 0 || ctlPort == 0 {
			dnsPort, ctlPort, err = pickPorts()
			if err != nil {
				lastErr = err
				continue
			}
			// Reserved by pickPorts (ports.go); released once named is
			// stopped (cleanups run last-registered first).
			tb.Cleanup(func() { release(dnsPort); release(ctlPort) })
		}
		s.dnsPort, s.ctlPort = dnsPort, ctlPort
		s.DNSAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(dnsPort))
		s.ControlAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(ctlPort))
		if err := s.writeConfig(); err != nil {
			tb.Fatalf("testbind: %v", err)
		}
		if o.Config != nil {
			if err := o.Config(s); err != nil {
				tb.Fatalf("testbind: Config: %v", err)
			}
			s.VersionToken = ""
		}
		lastErr = s.start()
		if lastErr == nil {
			tb.Cleanup(s.Stop)
			return s
		}
		s.Stop()
		if !errors.Is(lastErr, errPortInUse) || o.DNSPort != 0 {
			break
		}
	}
	tb.Fatalf("testbind: starting named: %v\n--- named log tail ---\n%s", lastErr, s.LogTail(40))
	return nil
}

// Restart stops named (if running) and starts it again with the same
// configuration, keys and ports.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.Stop()
		tb.Fatalf("testbind: restarting named: %v\n--- named log tail ---\n%s", err, s.LogTail(40))
	}
}

// Running reports whether named is currently running.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// Pid returns named's process id, or 0 when it is not running.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Stop sends SIGTERM to named, waits for it to exit and sends SIGKILL
// after a timeout. It is idempotent.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	cmd, done := s.cmd, s.done
	select {
	case <-done:
	default:
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	s.cmd = nil
	if s.logf != nil {
		_ = s.logf.Close()
		s.logf = nil
	}
}

// RNDC runs the real rndc program against this server and returns its
// combined output.
func (s *Server) RNDC(args ...string) (string, error) {
	return s.RNDCContext(context.Background(), args...)
}

// RNDCContext is RNDC with a context.
func (s *Server) RNDCContext(ctx context.Context, args ...string) (string, error) {
	host, port, _ := net.SplitHostPort(s.ControlAddr)
	full := append([]string{"-c", s.RNDCConfFile, "-s", host, "-p", port, "-k", s.RNDCKeyFile}, args...)
	out, err := exec.CommandContext(ctx, RNDCPath, full...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("rndc %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// LogTail returns the last n lines of named's log.
func (s *Server) LogTail(n int) string {
	data, err := os.ReadFile(s.LogFile)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteZone writes a zone file into ZoneDir and returns its path.
func (s *Server) WriteZone(name, content string) (string, error) {
	p := filepath.Join(s.ZoneDir, strings.TrimSuffix(name, ".")+".zone")
	return p, os.WriteFile(p, []byte(content), 0o644)
}

// MinimalZone returns the text of a small zone (SOA, NS, A) for origin.
func MinimalZone(origin string, serial uint32) string {
	origin = strings.TrimSuffix(origin, ".") + "."
	return fmt.Sprintf(`$ORIGIN %[1]s
$TTL 300
@	IN SOA	ns1.%[1]s hostmaster.%[1]s %[2]d 3600 600 86400 300
@	IN NS	ns1.%[1]s
ns1	IN A	127.0.0.1
www	IN A	192.0.2.1
`, origin, serial)
}

var errPortInUse = errors.New("port in use")

// pickPorts is freePorts, replaceable by tests.
var pickPorts = freePorts

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	logf, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(NamedPath, "-g", "-n", "2", "-c", s.ConfFile)
	cmd.Dir = s.Dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	// Own process group, so a ^C to `go test` does not race our SIGTERM.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	startOffset, _ := logf.Seek(0, 2)
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done, s.logf = cmd, done, logf

	deadline := time.Now().Add(StartTimeout)
	for {
		select {
		case <-done:
			if s.portTrouble(startOffset) {
				return fmt.Errorf("named exited: %w", errPortInUse)
			}
			return fmt.Errorf("named exited early: %v", cmd.ProcessState)
		default:
		}
		if s.portTrouble(startOffset) {
			return fmt.Errorf("named could not bind: %w", errPortInUse)
		}
		// named answers on its ports while it still loads the zones
		// added with rndc addzone; "running" is logged once all are.
		if s.ready() && s.logContains(startOffset, " running\n") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("named not ready after %v", StartTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// portTrouble reports whether named logged, since offset, that one of its
// ports was taken ("unable to listen on any configured interfaces" for the
// DNS port, "address in use" for the control channel).
func (s *Server) portTrouble(offset int64) bool {
	return s.logContains(offset, "address in use") ||
		s.logContains(offset, "unable to listen on any configured interfaces")
}

func (s *Server) logContains(offset int64, needle string) bool {
	data, err := os.ReadFile(s.LogFile)
	if err != nil || int64(len(data)) < offset {
		return false
	}
	return bytes.Contains(data[offset:], []byte(needle))
}

// ready reports whether the control port accepts connections and the DNS
// port answers version.bind with our token (so it is our named).
func (s *Server) ready() bool {
	c, err := net.DialTimeout("tcp", s.ControlAddr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	m := new(dns.Msg)
	m.SetQuestion("version.bind.", dns.TypeTXT)
	m.Question[0].Qclass = dns.ClassCHAOS
	cl := &dns.Client{Timeout: 300 * time.Millisecond}
	r, _, err := cl.Exchange(m, s.DNSAddr)
	if err != nil || r == nil || len(r.Answer) == 0 {
		return false
	}
	txt, ok := r.Answer[0].(*dns.TXT)
	return ok && len(txt.Txt) > 0 && (txt.Txt[0] == s.VersionToken || s.VersionToken == "")
}

func (s *Server) writeConfig() error {
	conf := fmt.Sprintf(`// generated by testbind
options {
	directory %[1]q;
	pid-file %[2]q;
	lock-file %[3]q;
	session-keyfile %[4]q;
	managed-keys-directory %[1]q;
	dump-file %[5]q;
	statistics-file %[6]q;
	listen-on port %[7]d { 127.0.0.1; };
	listen-on-v6 { none; };
	recursion no;
	allow-new-zones yes;
	notify explicit;
	dnssec-validation no;
	version %[8]q;
	%[9]s
};

include %[10]q;
include %[11]q;

controls {
	inet 127.0.0.1 port %[12]d allow { 127.0.0.1; } keys { %[13]q; };
};

statistics-channels {
	inet 127.0.0.1 port %[16]d allow { 127.0.0.1; };
};

%[14]s
%[15]s`,
		s.Dir,
		filepath.Join(s.Dir, "named.pid"),
		filepath.Join(s.Dir, "named.lock"),
		filepath.Join(s.Dir, "session.key"),
		filepath.Join(s.Dir, "named_dump.db"),
		filepath.Join(s.Dir, "named.stats"),
		s.dnsPort,
		s.VersionToken,
		s.opts.ExtraOptions,
		s.RNDCKeyFile,
		s.TSIGKeyFile,
		s.ctlPort,
		s.RNDCKeyName,
		s.opts.ExtraConfig,
		s.viewsConfig(),
		s.statsPort,
	)
	if err := os.WriteFile(s.ConfFile, []byte(conf), 0o644); err != nil {
		return err
	}
	rconf := fmt.Sprintf(`// generated by testbind
include %q;
options {
	default-key %q;
	default-server 127.0.0.1;
	default-port %d;
};
`, s.RNDCKeyFile, s.RNDCKeyName, s.ctlPort)
	return os.WriteFile(s.RNDCConfFile, []byte(rconf), 0o644)
}

func writeKey(path, name, alg, secret string) error {
	text := fmt.Sprintf("key %q {\n\talgorithm %s;\n\tsecret %q;\n};\n", name, alg, secret)
	return os.WriteFile(path, []byte(text), 0o600)
}

// freePorts returns a port free for both TCP and UDP on 127.0.0.1 (DNS)
// and another free TCP port (control channel), both reserved (ports.go)
// until the process exits or release.
func freePorts() (dnsPort, ctlPort int, err error) {
	for i := 0; i < 20; i++ {
		tl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, 0, err
		}
		port := tl.Addr().(*net.TCPAddr).Port
		ul, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			_ = tl.Close()
			continue
		}
		cl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			_ = tl.Close()
			_ = ul.Close()
			return 0, 0, err
		}
		ctlPort = cl.Addr().(*net.TCPAddr).Port
		ok := reserve(port)
		if ok && !reserve(ctlPort) {
			release(port)
			ok = false
		}
		_ = tl.Close()
		_ = ul.Close()
		_ = cl.Close()
		if !ok {
			continue // reserved by another test process (ports.go)
		}
		return port, ctlPort, nil
	}
	return 0, 0, errors.New("no free loopback port for both TCP and UDP")
}

func randomSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x", b)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
