package events

import (
	"strings"
	"testing"
	"time"
)

// FuzzWebhookCheck: any configured URL, name, secret and zone list is
// either refused with an error or accepted with a usable name (URL path
// and file name safe), a signer and zones in lower case.
func FuzzWebhookCheck(f *testing.F) {
	f.Add("https://hooks.example.net/dns", "", testSecret, "example.com")
	f.Add("http://127.0.0.1:9000/hook", "gitops", testSecret, "*.customers.example.com")
	f.Add("ftp://x", "../x", "whsec_", "*")
	f.Add("https://h/x", "a/b", "whsec_AAAA", "a*.b")
	f.Fuzz(func(t *testing.T, url, name, secret, zone string) {
		w := Webhook{URL: url, Name: name, Secret: secret, Zones: []string{zone}}
		if err := w.Check(); err != nil {
			return
		}
		if !namePattern.MatchString(w.Name) || strings.ContainsAny(w.Name, "/\\") || w.Name == "." || w.Name == ".." {
			t.Fatalf("accepted name %q", w.Name)
		}
		s, err := NewSigner(w.Secret)
		if err != nil {
			t.Fatalf("accepted secret %q: %v", w.Secret, err)
		}
		if sig := s.Signature("evt_1", time.Unix(0, 0), []byte("{}")); !strings.HasPrefix(sig, "v1,") {
			t.Fatalf("signature %q", sig)
		}
		if z := w.Zones[0]; z != strings.ToLower(z) || strings.HasSuffix(z, ".") && z != "." {
			t.Fatalf("accepted zone %q", z)
		}
		if w.RetryMin <= 0 || w.RetryMax < w.RetryMin || w.Timeout <= 0 || w.DeadAfter <= 0 {
			t.Fatalf("defaults not filled: %+v", w)
		}
	})
}
