package console

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// chromiumPath is Debian's Chromium, which scripts/setup.sh installs.
const chromiumPath = "/usr/bin/chromium"

// env is one journey's world: a named, the Caddy build serving the API
// and the console on one origin, static tokens, and a browser tab.
type env struct {
	t   testing.TB
	ns  *testbind.Server
	cd  *testcaddy.Caddy
	tok map[string]string
	// console is the console's URL.
	console string
	ctx     context.Context
	// problems are the exceptions, CSP violations and console errors the
	// page reported.
	mu       sync.Mutex
	problems []string
	// urls are the URLs (with fragment) of every request the page sent
	// or navigated to, and responses the console's answers' headers by
	// URL.
	urls      []string
	responses map[string]network.Headers
	// loaded is the sum of the bytes received for every request.
	loaded int64
}

// tokens are the static tokens every journey has, by name: their
// scopes in the Caddyfile's token block ("" is everything).
var tokens = map[string]string{
	"admin":  "",
	"reader": "actions read",
	"narrow": "zones a.scope.test",
	"acme":   "actions records read\n\tzones acme.test\n\tnames _acme-challenge.*\n\ttypes TXT",
}

// start brings up named, Caddy with the console at /console/ and a
// browser tab of 1280×900.
func start(t testing.TB, opts ...func(*testcaddy.Options)) *env {
	t.Helper()
	return startWith(t, testbind.Options{}, opts...)
}

// startWith is start with named's options (its views, say); the
// also-notify to the API's notify_listen is added to them.
func startWith(t testing.TB, nsOpts testbind.Options, opts ...func(*testcaddy.Options)) *env {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s: %v (scripts/setup.sh installs Debian's chromium)", chromiumPath, err)
	}
	e := &env{t: t, tok: map[string]string{}, responses: map[string]network.Headers{}}
	var lines []string
	for name, scope := range tokens {
		tk, hash, err := auth.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		e.tok[name] = tk
		if scope == "" {
			lines = append(lines, fmt.Sprintf("token %s %s", name, hash))
		} else {
			lines = append(lines, fmt.Sprintf("token %s %s {\n\t%s\n}", name, hash, scope))
		}
	}
	slices.Sort(lines)
	// named tells the API of every change (also-notify to its
	// notify_listen), so that changes made outside the API reach the
	// history and the event stream at once (docs/history.md).
	notifyPort, _, err := testbind.FreePorts()
	if err != nil {
		t.Fatal(err)
	}
	nsOpts.ExtraOptions += fmt.Sprintf("also-notify { 127.0.0.1 port %d; };\n\tixfr-from-differences yes;\n\tnotify-delay 0;", notifyPort)
	e.ns = testbind.Start(t, &nsOpts)
	o := testcaddy.Options{
		APIExtra: fmt.Sprintf("history {\n\tnotify_listen 127.0.0.1:%d\n}\nstatistics_channel %s\n", notifyPort, e.ns.StatsAddr) +
			"auth static {\n" + strings.Join(lines, "\n") + "\n}",
		SiteExtra: "handle /console* {\n\t\tzone_api_console\n\t}",
	}
	for _, f := range opts {
		f(&o)
	}
	e.cd = testcaddy.Start(t, e.ns, o)
	e.console = e.cd.Base + "/console/"
	e.browser(1280, 900)
	return e
}

// browser starts Chromium with the flags this machine needs (its network
// is closed beyond loopback) and a new empty profile, and opens a tab.
func (e *env) browser(width, height int) {
	t := e.t
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(e.listen))
	t.Cleanup(func() {
		if t.Failed() {
			e.screenshot("failed-" + t.Name())
		}
		cancelC()
		cancelA()
	})
	// The first call starts chromium, and must not have a deadline of
	// its own (it would end the browser): a watchdog ends a start that
	// hangs instead.
	started := make(chan struct{})
	go func() {
		select {
		case <-started:
		case <-time.After(60 * time.Second):
			cancelA()
		}
	}()
	_, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{})
	close(started)
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	// Violations of the CSP are also collected by the page itself, by a
	// listener the DevTools protocol adds before any script of the page.
	_, err = chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`,
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	e.ctx = ctx
}

// listen collects the page's exceptions, console errors and security
// messages (CSP violations).
func (e *env) listen(ev any) {
	switch ev := ev.(type) {
	case *cdpruntime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		e.problem(fmt.Sprintf("exception: %s (%s:%d)", msg, d.URL, d.LineNumber))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Source == cdplog.EntrySourceSecurity || strings.Contains(ev.Entry.Text, "Content Security Policy") {
			e.problem("security: " + ev.Entry.Text)
		}
	case *network.EventRequestWillBeSent:
		e.mu.Lock()
		e.urls = append(e.urls, ev.Request.URL+ev.Request.URLFragment, ev.DocumentURL)
		e.mu.Unlock()
	case *network.EventLoadingFinished:
		e.mu.Lock()
		e.loaded += int64(ev.EncodedDataLength)
		e.mu.Unlock()
	case *network.EventResponseReceived:
		if strings.Contains(ev.Response.URL, "/console") {
			e.mu.Lock()
			e.responses[ev.Response.URL] = ev.Response.Headers
			e.mu.Unlock()
		}
	case *cdpruntime.EventConsoleAPICalled:
		if ev.Type == cdpruntime.ConsoleAPICalledTypeError {
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			e.problem("console.error: " + strings.Join(parts, " "))
		}
	}
}

func (e *env) problem(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.problems = append(e.problems, s)
}

// noProblems fails the test when the page reported an exception, a
// console error or a CSP violation.
func (e *env) noProblems() {
	e.t.Helper()
	csp, _ := evalWithin[[]string](e, `window.__csp || []`, 15*time.Second)
	e.mu.Lock()
	defer e.mu.Unlock()
	if all := append(slices.Clone(e.problems), csp...); len(all) > 0 {
		e.t.Errorf("the page reported %d problems:\n%s", len(all), strings.Join(all, "\n"))
	}
}

// run runs browser actions with a generous bound, failing the test with
// what was being done.
func (e *env) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
}

// signIn opens the console and signs in with the named token.
func (e *env) signIn(who string) {
	e.t.Helper()
	e.run("signing in as "+who,
		chromedp.Navigate(e.console),
		chromedp.WaitVisible(chromedp.CSS(`dialog.signin input[name=token]`)),
	)
	e.typeToken(who)
	e.run("waiting for the sign-in", waitSignedIn)
}

// waitSignedIn waits until the console shows who is signed in and the
// sign-in dialog is gone.
var waitSignedIn = chromedp.Steps(chromedp.WaitVisible(chromedp.CSS(`.who .id`)), chromedp.WaitNotVisible(chromedp.CSS(`dialog.signin`)))

// typeToken types the named token into the sign-in dialog and submits.
func (e *env) typeToken(who string) {
	e.t.Helper()
	e.run("typing the token",
		chromedp.WaitVisible(chromedp.CSS(`dialog.signin input[name=token]`)),
		chromedp.SendKeys(chromedp.CSS(`dialog.signin input[name=token]`), e.tok[who]),
		chromedp.Click(chromedp.CSS(`dialog.signin button[type=submit]`)),
	)
}

// open navigates to a fragment of the console (#/zones, say).
func (e *env) open(fragment string) {
	e.t.Helper()
	e.eval(fmt.Sprintf(`location.hash = %q`, fragment))
}

// click clicks the first element matching the query selector.
func (e *env) click(sel string) {
	e.t.Helper()
	e.run("clicking "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
}

// fill replaces the value of an input by typing.
func (e *env) fill(sel, value string) {
	e.t.Helper()
	e.run("filling "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	e.eval(fmt.Sprintf(`(() => { const el = document.querySelector(%q); el.value = ''; el.focus(); })()`, sel))
	e.run("typing into "+sel, chromedp.SendKeys(chromedp.CSS(sel), value))
}

// waitText waits until some element matching sel contains want.
func (e *env) waitText(sel, want string) {
	e.t.Helper()
	e.waitJS(fmt.Sprintf(`[...document.querySelectorAll(%q)].some((el) => !el.closest('[hidden]') && el.textContent.includes(%q))`, sel, want),
		fmt.Sprintf("%s to contain %q", sel, want))
}

// waitJS polls a JavaScript condition for up to 20 s; it returns how
// long it took.
func (e *env) waitJS(cond, what string) time.Duration {
	e.t.Helper()
	t0 := time.Now()
	deadline := t0.Add(20 * time.Second)
	for {
		ok, err := evalWithin[bool](e, cond, 15*time.Second)
		if err != nil {
			e.t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return time.Since(t0)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eval evaluates JavaScript, ignoring its value.
func (e *env) eval(js string) {
	e.t.Helper()
	evalAs[any](e, js)
}

// evalAs evaluates JavaScript and decodes its value.
func evalAs[T any](e *env, js string) T {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		e.t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// screenshot writes the page to build/console-screenshots/<name>.png in
// the repository (kept for a failed test), and logs the path.
func (e *env) screenshot(name string) {
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		e.t.Logf("screenshot %s: %v", name, err)
		return
	}
	dir := filepath.Join(repoRoot(), "build", "console-screenshots")
	_ = os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, strings.NewReplacer("/", "-", " ", "_").Replace(name)+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		e.t.Logf("screenshot %s: %v", name, err)
		return
	}
	e.t.Logf("screenshot: %s", p)
}

// docShot writes a screenshot for docs/console.md when
// ZONEAPI_CONSOLE_DOCS=1 (docs/images/console-<name>.png).
func (e *env) docShot(name string) {
	if os.Getenv("ZONEAPI_CONSOLE_DOCS") != "1" {
		return
	}
	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		e.t.Fatal(err)
	}
	dir := filepath.Join(repoRoot(), "docs", "images")
	_ = os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "console-"+name+".png"), buf, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// api sends a request to the API with the named token and returns the
// status and decoded body.
func (e *env) api(who, method, path string, body any) (int, map[string]any) {
	e.t.Helper()
	return apiCall(e.t, e.cd.Base, e.tok[who], method, path, body, nil)
}

// createZone creates a zone with an NS, its glue and the given records
// (name, type, value; TTL 300).
func (e *env) createZone(zone string, records ...[3]string) {
	e.t.Helper()
	recs := []map[string]any{}
	for _, r := range records {
		recs = append(recs, map[string]any{"name": r[0], "type": r[1], "value": r[2], "ttl": 300})
	}
	st, b := e.api("admin", "POST", "/api/v1/zones", map[string]any{
		"zoneName": zone, "zoneType": "primary",
		"zoneConfig": map[string]any{"ttl": 3600,
			"soa":         map[string]any{"primaryNs": "ns1." + zone + ".", "adminEmail": "admin." + zone + "."},
			"nameServers": []string{"ns1." + zone + "."}, "nameServerIps": map[string]string{"ns1." + zone + ".": "192.0.2.53"},
			"records": recs},
	})
	if st != 201 {
		e.t.Fatalf("creating %s: %d %v", zone, st, b)
	}
}

// served is the sorted data named serves for name and type (none for an
// empty answer or NXDOMAIN).
func (e *env) served(name string, qtype uint16) []string {
	e.t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	var r *dns.Msg
	var err error
	for range 3 {
		if r, _, err = (&dns.Client{Timeout: 3 * time.Second}).Exchange(m, e.ns.DNSAddr); err == nil {
			break
		}
	}
	if err != nil {
		e.t.Fatalf("asking named for %s: %v", name, err)
	}
	var out []string
	for _, rr := range r.Answer {
		if rr.Header().Rrtype == qtype {
			out = append(out, strings.TrimPrefix(rr.String(), rr.Header().String()))
		}
	}
	slices.Sort(out)
	return out
}

// rcode is named's answer code for the zone's SOA (NOERROR while it is
// served).
func (e *env) rcode(zone string) int {
	e.t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(zone), dns.TypeSOA)
	r, _, err := (&dns.Client{Timeout: 3 * time.Second}).Exchange(m, e.ns.DNSAddr)
	if err != nil {
		e.t.Fatalf("SOA of %s: %v", zone, err)
	}
	return r.Rcode
}

// nsupdate changes the zone behind the API's back with BIND's nsupdate.
func (e *env) nsupdate(zone, lines string) {
	e.t.Helper()
	host, port, _ := net.SplitHostPort(e.ns.DNSAddr)
	cmd := exec.Command("nsupdate", "-v", "-k", e.ns.TSIGKeyFile)
	cmd.Stdin = strings.NewReader(fmt.Sprintf("server %s %s\nzone %s\n%ssend\n", host, port, zone, lines))
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("nsupdate: %v: %s", err, out)
	}
}

// soaSerial is the serial named serves for the zone.
func (e *env) soaSerial(zone string) uint32 {
	e.t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(zone), dns.TypeSOA)
	r, _, err := (&dns.Client{Timeout: 3 * time.Second}).Exchange(m, e.ns.DNSAddr)
	if err != nil || len(r.Answer) == 0 {
		e.t.Fatalf("SOA of %s: %v %v", zone, err, r)
	}
	return r.Answer[0].(*dns.SOA).Serial
}

// colorScheme emulates the system's light or dark preference.
func (e *env) colorScheme(scheme string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
	if err != nil {
		e.t.Fatal(err)
	}
}

// screenWidth emulates a screen of the width (a phone at 375), or
// clears the emulation at 1280.
func (e *env) screenWidth(width int64) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	var err error
	if width >= 1280 {
		_, err = chromedp.Call(ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
	} else {
		_, err = chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 800, DeviceScaleFactor: 1, Mobile: true})
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

// evalAsAwait is evalAs for an expression whose value is a promise.
func evalAsAwait[T any](e *env, js string) T {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		e.t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// evalWithin evaluates JavaScript with a bound on the wait.
func evalWithin[T any](e *env, js string, d time.Duration) (T, error) {
	ctx, cancel := context.WithTimeout(e.ctx, d)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js))
}
