package console

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axePath is axe-core as scripts/setup.sh installs it (npm, build/npm).
var axePath = filepath.Join(repoRoot(), "build", "npm", "node_modules", "axe-core", "axe.min.js")

// axeViolation is one rule axe-core found broken, with its nodes.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// axe injects axe-core into the page (through the DevTools protocol,
// which the CSP does not govern) and returns the serious and critical
// violations of the page as it is now.
func (e *env) axe(page string) []string {
	e.t.Helper()
	src, err := os.ReadFile(axePath)
	if err != nil {
		e.t.Fatalf("%v (scripts/setup.sh installs axe-core into build/npm)", err)
	}
	if !evalAs[bool](e, `typeof window.axe === 'object'`) {
		e.eval(string(src) + ";true")
	}
	ctx, cancel := context.WithTimeout(e.ctx, 60*time.Second)
	defer cancel()
	vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ['violations']}).then((r) => r.violations)`, chromedp.EvalAwaitPromise))
	if err != nil {
		e.t.Fatalf("axe on %s: %v", page, err)
	}
	var bad []string
	for _, v := range vs {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target...))
		}
		bad = append(bad, fmt.Sprintf("%s: %s (%s) at %s", page, v.ID, v.Impact, strings.Join(where, ", ")))
	}
	return bad
}

// TestAccessibility: axe-core finds no serious or critical violation on
// any page of the console, signed in as an admin and as a read-only
// token, in light and dark, at 1280 and 375 px wide, with the editor, the
// pending changes, the conflict view and the dialogs open.
func TestAccessibility(t *testing.T) {
	e := start(t)
	e.createZone("a11y.test", [3]string{"www", "A", "192.0.2.1"}, [3]string{"@", "MX", "10 mail.a11y.test."}, [3]string{"mail", "A", "192.0.2.25"})
	var bad []string
	check := func(page string) { bad = append(bad, e.axe(page)...) }
	for _, who := range []string{"admin", "reader"} {
		e.run("loading the console", chromedp.Navigate(e.console), chromedp.WaitVisible(chromedp.CSS(`dialog.signin input[name=token]`)))
		check(who + " sign-in")
		if who == "admin" {
			// The check itself: a button without a name is found.
			e.eval(`document.querySelector('dialog.signin form').append(Object.assign(document.createElement('button'), {id: 'axe-control', type: 'button'}))`)
			if got := e.axe("control"); len(got) == 0 || !strings.Contains(got[0], "button-name") {
				t.Fatalf("axe-core did not find the unnamed button: %v", got)
			}
			e.eval(`document.getElementById('axe-control').remove()`)
		}
		e.typeToken(who)
		e.run("waiting for the sign-in", waitSignedIn)
		for _, scheme := range []string{"light", "dark"} {
			e.colorScheme(scheme)
			for _, p := range []struct{ hash, ready string }{
				{"#/", `document.querySelector('za-overview .changes li')`},
				{"#/zones", `document.querySelector('za-zones tbody tr')`},
				{"#/zones/a11y.test/records", `document.querySelector('za-zone')?.base?.size > 0`},
				{"#/zones/a11y.test/history", `document.querySelector('za-zone .changes li')`},
				{"#/zones/a11y.test/settings", `document.querySelector('za-zone .settingsform textarea')`},
				{"#/history", `document.querySelector('za-history .changes li')`},
				{"#/search", `document.querySelector('za-search input')`},
			} {
				e.open(p.hash)
				e.waitJS("!!("+p.ready+")", p.hash)
				check(fmt.Sprintf("%s %s %s", who, scheme, p.hash))
			}
			e.fill("za-search input", "192.0.2")
			e.click("za-search button")
			e.waitText("za-search table", "www")
			check(who + " " + scheme + " search results")
		}
		e.colorScheme("light")
		if who == "admin" {
			e.open("#/zones")
			e.click("za-zones .titlebar button.primary")
			check("admin create form")
			e.click(`za-zones button[aria-label="Delete a11y.test"]`)
			check("admin delete dialog")
			e.click("dialog.confirm button[type=button]")
			e.click("za-zones button.importbtn")
			e.fill("za-zones form.import input[name=importName]", "a11yimp.test")
			e.eval(`document.querySelector('za-zones form.import textarea').value = '@ 600 SOA ns1 hostmaster 1 3600 600 604800 300\n@ 600 NS ns1\nns1 600 A 192.0.2.1\nns1 600 CNAME x.example.\n'`)
			e.click("za-zones form.import button.previewbtn")
			e.waitText("za-zones .preview [role=status]", "4 records")
			e.click("za-zones form.import button[type=submit]")
			e.waitText("za-zones .importmsg .error", "400")
			check("admin import preview and refusal")
			e.click("za-zones form.import .actions button[type=button]")
			e.open("#/zones/a11y.test/records")
			e.waitJS(`document.querySelector('za-zone')?.base?.size > 0`, "the records")
			e.stageEdit("www A", "192.0.2.2")
			e.click("za-zone .toolbar button.primary")
			check("admin editor and pending changes")
			e.click("za-zone form.editor button[type=button]")
			e.click("za-zone .toolbar button.astext")
			check("admin zone as text")
			e.click("za-zone form.text button[type=button]")
			if st, b := e.api("admin", "POST", "/api/v1/zones/a11y.test/records", map[string]any{"name": "x", "type": "A", "value": "192.0.2.99"}); st != 201 {
				t.Fatalf("%d %v", st, b)
			}
			e.click("za-zone .pending button.primary")
			e.waitText("za-zone .conflict", "Someone changed")
			check("admin conflict")
			e.screenWidth(375)
			for _, h := range []string{"#/", "#/zones", "#/zones/a11y.test/records"} {
				e.open(h)
				time.Sleep(300 * time.Millisecond)
				check("admin 375px " + h)
			}
			if w := evalAs[int](e, `document.documentElement.scrollWidth`); w > 380 {
				t.Errorf("at 375 px the zone page is %d px wide: it scrolls sideways", w)
			}
			e.docShot("mobile")
			e.screenWidth(1280)
		}
		e.click(".who button") // sign out
	}
	if len(bad) > 0 {
		t.Errorf("%d serious or critical violations:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	e.noProblems()
}
