package testbind

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestViews starts named with two views, one matched by its TSIG key and
// one by a source address, each holding its own example.com from
// named.conf, and checks that each view answers its own data, that rndc
// reaches a zone only by naming its view, and that a zone added with
// rndc into one view is served by that view alone.
func TestViews(t *testing.T) {
	s := Start(t, &Options{
		Views: []View{
			{Name: "internal", Key: true},
			{Name: "external", MatchClients: []string{"127.0.0.2", "127.0.0.1"}},
		},
		BeforeStart: func(s *Server) error {
			for view, addr := range map[string]string{"internal": "10.0.0.1", "external": "192.0.2.1"} {
				text := strings.Replace(MinimalZone("example.com", 1), "192.0.2.1", addr, 1)
				p, err := s.WriteViewZone(view, "example.com", text)
				if err != nil {
					return err
				}
				for i := range s.opts.Views {
					if s.opts.Views[i].Name == view {
						s.opts.Views[i].Config = ZoneStatement("example.com", p, "")
					}
				}
			}
			return nil
		},
	})
	want := map[string]string{"internal": "10.0.0.1", "external": "192.0.2.1", "": "192.0.2.1"}
	for view, addr := range want {
		rrs, err := s.Query(view, "www.example.com", dns.TypeA)
		if err != nil {
			t.Fatalf("view %q: %v", view, err)
		}
		if len(rrs) != 1 || rrs[0].(*dns.A).A.String() != addr {
			t.Errorf("view %q: www.example.com A = %v, want %s", view, rrs, addr)
		}
	}
	if out, err := s.RNDC("zonestatus", "example.com"); err == nil || !strings.Contains(out, "multiple views") {
		t.Errorf("zonestatus without a view: %v %q, want named's 'found in multiple views'", err, out)
	}
	if out, err := s.RNDC("zonestatus", "example.com", "IN", "internal"); err != nil || !strings.Contains(out, "viewzones/internal") {
		t.Errorf("zonestatus in view internal: %v %q", err, out)
	}
	// A zone added to one view only.
	p, err := s.WriteViewZone("internal", "only.test", MinimalZone("only.test", 1))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s.RNDC("addzone", "only.test", "IN", "internal", `{ type primary; file "`+p+`"; };`); err != nil {
		t.Fatalf("addzone in view: %v %s", err, out)
	}
	if rrs, err := s.Query("internal", "www.only.test", dns.TypeA); err != nil || len(rrs) != 1 {
		t.Errorf("internal view: www.only.test = %v, %v", rrs, err)
	}
	if _, err := s.Query("external", "www.only.test", dns.TypeA); err == nil || !strings.Contains(err.Error(), "REFUSED") {
		t.Errorf("external view answered www.only.test (%v), want REFUSED", err)
	}
}
