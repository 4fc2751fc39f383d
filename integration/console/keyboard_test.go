package console

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"
)

// tabTo presses Tab until the focused element matches the selector
// (at most 80 times) and fails the test if it never does.
func (e *env) tabTo(sel string) {
	e.t.Helper()
	for range 80 {
		if evalAs[bool](e, fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, sel)) {
			return
		}
		e.run("pressing Tab", chromedp.KeyEvent("\t"))
	}
	e.t.Fatalf("80 Tabs never reached %s (focus is on %s)", sel, evalAs[string](e, `document.activeElement.outerHTML.slice(0, 120)`))
}

// TestKeyboardJourney: with the keyboard alone (Tab, Enter, typing), a
// person signs in, opens a zone, edits an RRset, stages and applies it;
// named serves the change. Every step is reached by Tab from where the
// last one left the focus.
func TestKeyboardJourney(t *testing.T) {
	e := start(t)
	e.createZone("keys.test", [3]string{"www", "A", "192.0.2.1"})
	e.run("loading the console", chromedp.Navigate(e.console), chromedp.WaitVisible(chromedp.CSS(`dialog.signin input[name=token]`)))
	if !evalAs[bool](e, `document.activeElement.name === 'token'`) {
		t.Fatal("the token field does not have the focus at sign-in")
	}
	e.run("typing the token", chromedp.KeyEvent(e.tok["admin"]+"\r"))
	e.run("waiting for the sign-in", waitSignedIn)

	e.tabTo(`nav a[href="#/zones"]`)
	e.run("Enter", chromedp.KeyEvent("\r"))
	e.waitText("za-zones tbody", "keys.test")
	e.tabTo(`za-zones tbody a`)
	e.run("Enter", chromedp.KeyEvent("\r"))
	e.waitJS(`document.querySelector('za-zone')?.base?.size > 0`, "the zone's records")
	e.tabTo(`button[aria-label="Edit www A"]`)
	e.run("Enter", chromedp.KeyEvent("\r"))
	if !evalAs[bool](e, `document.activeElement.name === 'values'`) {
		t.Fatal("the editor's values do not have the focus")
	}
	e.run("typing a value", chromedp.KeyEvent("\n192.0.2.5"))
	e.tabTo(`form.editor button[type=submit]`)
	e.run("Enter", chromedp.KeyEvent("\r"))
	e.waitText("za-zone .pending", "192.0.2.5")
	e.tabTo(`za-zone .pending button.primary`)
	e.run("Enter", chromedp.KeyEvent("\r"))
	e.waitText("za-zone .notice", "Applied 1 change")
	e.want("www.keys.test", dns.TypeA, "192.0.2.1", "192.0.2.5")
	e.noProblems()
}
