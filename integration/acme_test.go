package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/client"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// pebbleBin finds the pebble binary scripts/setup.sh installs.
func pebbleBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ZONEAPI_PEBBLE"); p != "" {
		return p
	}
	if p, err := exec.LookPath("pebble"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "pebble")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("pebble is not installed: run scripts/setup.sh (or set ZONEAPI_PEBBLE)")
	return ""
}

// selfSigned writes a certificate and key for 127.0.0.1 and localhost
// (pebble's HTTPS listener) and returns their paths.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "pebble test listener"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// txtWatch is a DNS forwarder between pebble and named that records the
// _acme-challenge TXT answers named gave pebble.
type txtWatch struct {
	mu   sync.Mutex
	seen map[string][]string // name -> TXT strings answered
}

func startTXTWatch(t *testing.T, ns *testbind.Server) (*txtWatch, string) {
	t.Helper()
	w := &txtWatch{seen: map[string][]string{}}
	up := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	handler := dns.HandlerFunc(func(rw dns.ResponseWriter, m *dns.Msg) {
		in, _, err := up.Exchange(m, ns.DNSAddr)
		if err != nil {
			fail := new(dns.Msg)
			fail.SetRcode(m, dns.RcodeServerFailure)
			_ = rw.WriteMsg(fail)
			return
		}
		if len(m.Question) == 1 && m.Question[0].Qtype == dns.TypeTXT && strings.HasPrefix(strings.ToLower(m.Question[0].Name), "_acme-challenge.") {
			w.mu.Lock()
			for _, rr := range in.Answer {
				if txt, ok := rr.(*dns.TXT); ok {
					w.seen[strings.ToLower(m.Question[0].Name)] = append(w.seen[strings.ToLower(m.Question[0].Name)], txt.Txt...)
				}
			}
			w.mu.Unlock()
		}
		_ = rw.WriteMsg(in)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range []*dns.Server{{Listener: l, Handler: handler}, {PacketConn: pc, Handler: handler}} {
		go func() { _ = srv.ActivateAndServe() }()
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return w, l.Addr().String()
}

func (w *txtWatch) answers(name string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen[strings.ToLower(dns.Fqdn(name))]...)
}

// startProcess starts a test process with its output in dir/name.log and
// stops it by pid at cleanup.
func startProcess(t *testing.T, dir, name string, env []string, bin string, args ...string) *exec.Cmd {
	t.Helper()
	out, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); out.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return cmd
}

func waitTCP(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens on %s", addr)
}

// startPebble starts pebble on a loopback port with a listener
// certificate of its own, validating challenges against dnsAddr; it
// returns pebble's address and the certificate (the CA root to trust).
func startPebble(t *testing.T, pebble, dir, dnsAddr string) (string, string) {
	t.Helper()
	certFile, keyFile := selfSigned(t, dir)
	pebbleAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	conf, _ := json.Marshal(map[string]any{"pebble": map[string]any{
		"listenAddress": pebbleAddr, "managementListenAddress": fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		"certificate": certFile, "privateKey": keyFile, "httpPort": freePort(t), "tlsPort": freePort(t),
		"ocspResponderURL": "", "externalAccountBindingRequired": false,
		"retryAfter": map[string]int{"authz": 1, "order": 1},
	}})
	if err := os.WriteFile(filepath.Join(dir, "pebble.json"), conf, 0o600); err != nil {
		t.Fatal(err)
	}
	startProcess(t, dir, "pebble", []string{"PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0", "PEBBLE_AUTHZREUSE=0"},
		pebble, "-config", filepath.Join(dir, "pebble.json"), "-dnsserver", dnsAddr)
	waitTCP(t, pebbleAddr)

	return pebbleAddr, certFile
}

// TestACMEDNS01 is ACME DNS-01 end to end: pebble (the ACME test server)
// validates dns-01 challenges against the test's named, through a
// forwarder that records the TXT answers named gives it; a second Caddy
// whose site has `tls { dns zone_api <endpoint> <token> }` obtains a
// certificate for www.acme.test, a name in a zone created through the
// API (certmagic finds the zone by asking named for its SOA: the tls
// block's resolvers), with a token scoped to _acme-challenge TXT records
// of that zone, which can do nothing else. The _acme-challenge TXT record was served while pebble validated
// and is gone afterwards.
func TestACMEDNS01(t *testing.T) {
	pebble := pebbleBin(t)
	ns := startNamed(t)
	// Scoped tokens (auth static): an admin token, and the ACME client's,
	// which may only change and read _acme-challenge TXT records of the
	// zone.
	const acmeToken = "acme-dns01-token-51d2"
	api := startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf(`auth static {
				token admin %s
				token acme %s {
					actions records read
					zones acme.test
					names _acme-challenge.*
					types TXT
				}
			}`, sha256Hex(testToken), sha256Hex(acmeToken))})
	c, err := client.New(api.Base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	createZone(t, c, "acme.test")
	scoped, err := client.New(api.Base, acmeToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, r := range []client.Record{
		{Name: "www", Type: "TXT", Value: "not a challenge"},
		{Name: "_acme-challenge.www", Type: "A", Value: "192.0.2.1"},
	} {
		if _, err := scoped.AddRecord(ctx, "acme.test", r); client.StatusCode(err) != http.StatusForbidden {
			t.Errorf("the ACME token adding %s %s: %v, want 403", r.Name, r.Type, err)
		}
	}
	if _, err := scoped.CreateZone(ctx, client.CreateZone{ZoneName: "other.test", ZoneType: "primary"}); client.StatusCode(err) != http.StatusForbidden {
		t.Errorf("the ACME token creating a zone: %v, want 403", err)
	}
	watch, dnsAddr := startTXTWatch(t, ns)

	dir := t.TempDir()
	pebbleAddr, certFile := startPebble(t, pebble, dir, dnsAddr)

	// The ACME client: a Caddy with the DNS provider module, pointed at
	// the API with a token from the environment.
	httpsPort := freePort(t)
	caddyfile := fmt.Sprintf(`{
	admin 127.0.0.1:%d
	persist_config off
	skip_install_trust
	http_port %d
	https_port %d
	storage file_system %s
	log {
		output file %s
		level DEBUG
	}
}

https://www.acme.test:%d {
	bind 127.0.0.1
	tls {
		dns zone_api %s {env.ACME_ZONEAPI_TOKEN}
		resolvers %s
		propagation_delay 0
		propagation_timeout -1
		ca https://%s/dir
		ca_root %s
	}
	respond "hello over ACME"
}
`, freePort(t), freePort(t), httpsPort, filepath.Join(dir, "data"), filepath.Join(dir, "acme-caddy.log"),
		httpsPort, api.Base, ns.DNSAddr, pebbleAddr, certFile)
	cf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cf, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	startProcess(t, dir, "acme-caddy-stderr", []string{"HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "ACME_ZONEAPI_TOKEN=" + acmeToken},
		caddyBin, "run", "--config", cf, "--adapter", "caddyfile")

	leaf := waitCert(t, filepath.Join(dir, "data"), "www.acme.test", dir)

	// pebble was answered the challenge's TXT record by named...
	if got := watch.answers("_acme-challenge.www.acme.test"); len(got) == 0 || got[0] == "" {
		t.Errorf("named never answered pebble a TXT record for _acme-challenge.www.acme.test")
	}
	// ...and it is gone now: certmagic deletes it after validation.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m := query(t, ns, "_acme-challenge.www.acme.test", dns.TypeTXT)
		if len(answers(m, dns.TypeTXT)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("_acme-challenge TXT still served after issuance: %v", m.Answer)
		}
	}
	// The site serves the certificate.
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", httpsPort), &tls.Config{ServerName: "www.acme.test", InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := conn.ConnectionState().PeerCertificates[0]; !got.Equal(leaf) {
		t.Errorf("the site serves %v, not the certificate obtained", got.DNSNames)
	}
}

// sha256Hex is a token's hash as auth static takes it.
func sha256Hex(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// waitCert waits for Caddy to store a certificate for name under storage
// and checks it is pebble's; logDir holds the logs shown on failure.
func waitCert(t *testing.T, storage, name, logDir string) *x509.Certificate {
	t.Helper()
	var certPath string
	for deadline := time.Now().Add(90 * time.Second); certPath == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		_ = filepath.WalkDir(filepath.Join(storage, "certificates"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == name+".crt" {
				certPath = p
			}
			return nil
		})
	}
	if certPath == "" {
		var logs []string
		for _, f := range []string{"acme-caddy.log", "pebble.log", "caddy.log", "caddy.stderr"} {
			if b, err := os.ReadFile(filepath.Join(logDir, f)); err == nil {
				logs = append(logs, f+":\n"+tail(b, 5000))
			}
		}
		t.Fatalf("no certificate for %s\n%s", name, strings.Join(logs, "\n"))
	}
	b, err := os.ReadFile(certPath)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s holds no PEM", certPath)
	}
	leaf, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != name || !strings.Contains(leaf.Issuer.CommonName, "Pebble") {
		t.Errorf("certificate for %v issued by %q", leaf.DNSNames, leaf.Issuer.CommonName)
	}
	return leaf
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// TestACMEDNS01Local is the local form: one Caddy runs the zone_api
// handler and a site with `tls { dns zone_api }` (no endpoint, no token),
// whose certificate comes from the BIND that handler manages, in process.
// The API requires a static token, which the local form does not need;
// the audit lines name the local principal.
func TestACMEDNS01Local(t *testing.T) {
	pebble := pebbleBin(t)
	ns := startNamed(t)
	watch, dnsAddr := startTXTWatch(t, ns)
	dir := t.TempDir()
	pebbleAddr, certFile := startPebble(t, pebble, dir, dnsAddr)
	authConf := fmt.Sprintf("auth static {\n\t\t\t\ttoken admin %s\n\t\t\t}", sha256Hex(testToken))

	// The zone is created first, by a Caddy with only the API, so that it
	// exists when the second one starts managing its certificate.
	first := testcaddy.Start(t, ns, testcaddy.Options{APIExtra: authConf})
	c, err := client.New(first.Base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	createZone(t, c, "local.test")
	first.Stop()

	httpsPort := freePort(t)
	storage := filepath.Join(dir, "data")
	cd := testcaddy.Start(t, ns, testcaddy.Options{
		Global:   fmt.Sprintf("skip_install_trust\n\thttp_port %d\n\thttps_port %d\n\tstorage file_system %s", freePort(t), httpsPort, storage),
		APIExtra: authConf,
		Sites: fmt.Sprintf(`https://www.local.test:%d {
	bind 127.0.0.1
	tls {
		dns zone_api
		resolvers %s
		propagation_delay 0
		propagation_timeout -1
		ca https://%s/dir
		ca_root %s
	}
	respond "hello from the API's own Caddy"
}
`, httpsPort, ns.DNSAddr, pebbleAddr, certFile),
	})
	waitCert(t, storage, "www.local.test", cd.Dir)
	if got := watch.answers("_acme-challenge.www.local.test"); len(got) == 0 || got[0] == "" {
		t.Errorf("named never answered pebble a TXT record for _acme-challenge.www.local.test")
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m := query(t, ns, "_acme-challenge.www.local.test", dns.TypeTXT)
		if len(answers(m, dns.TypeTXT)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("_acme-challenge TXT still served after issuance: %v", m.Answer)
		}
	}
	// The record changes went through the handler, as the local principal.
	var sawAudit bool
	for deadline := time.Now().Add(30 * time.Second); !sawAudit && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for line := range strings.SplitSeq(cd.Log(), "\n") {
			if strings.Contains(line, `"audit"`) && strings.Contains(line, `"principal":"zone_api.local"`) && strings.Contains(line, `"zone":"local.test"`) {
				sawAudit = true
			}
		}
	}
	if !sawAudit {
		t.Errorf("no audit line of the local principal in caddy's log")
	}
}
