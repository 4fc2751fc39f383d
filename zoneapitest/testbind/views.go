package testbind

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// View is a view of the generated named.conf (split horizon). With
// Options.Views set, every zone of the server is in a view, as named
// requires: the views are written in order, and named answers a message
// from the first view whose match-clients it matches.
type View struct {
	// Name is the view's name, e.g. "internal".
	Name string
	// Key, when true, gives the view a TSIG key of its own, named
	// "<Name>-key" (hmac-sha256), which its match-clients names: a
	// message signed with it (an UPDATE, a query, an AXFR) is answered
	// by this view. Server.ViewKeys holds it.
	Key bool
	// MatchClients are further match-clients elements, e.g. "127.0.0.2"
	// (a source address: send from it to reach the view). A view with
	// neither Key nor MatchClients matches any client.
	MatchClients []string
	// Config is inserted verbatim inside the view block, e.g. its zone
	// statements (see ZoneStatement and WriteViewZone).
	Config string
}

// ViewKey is the TSIG key of a view (View.Key).
type ViewKey struct {
	// Name, Algorithm and Secret (base64) of the key.
	Name, Algorithm, Secret string
	// File is the key file (BIND syntax), included by named.conf.
	File string
}

// viewKeys writes the key files of the views that ask for one.
func (s *Server) viewKeys() error {
	s.ViewKeys = map[string]ViewKey{}
	for _, v := range s.opts.Views {
		if !v.Key {
			continue
		}
		k := ViewKey{Name: v.Name + "-key", Algorithm: "hmac-sha256", Secret: randomSecret(),
			File: filepath.Join(s.Dir, v.Name+"-view.key")}
		if err := writeKey(k.File, k.Name, k.Algorithm, k.Secret); err != nil {
			return err
		}
		s.ViewKeys[v.Name] = k
	}
	return nil
}

// viewsConfig renders the view blocks (and the includes of their keys).
func (s *Server) viewsConfig() string {
	var b strings.Builder
	for _, v := range s.opts.Views {
		if k, ok := s.ViewKeys[v.Name]; ok {
			fmt.Fprintf(&b, "include %q;\n", k.File)
		}
	}
	for _, v := range s.opts.Views {
		var match []string
		if k, ok := s.ViewKeys[v.Name]; ok {
			match = append(match, fmt.Sprintf("key %q;", k.Name))
		}
		for _, m := range v.MatchClients {
			match = append(match, m+";")
		}
		if len(match) == 0 {
			match = []string{"any;"}
		}
		fmt.Fprintf(&b, "view %q {\n\tmatch-clients { %s };\n%s\n};\n", v.Name, strings.Join(match, " "), v.Config)
	}
	return b.String()
}

// ViewZoneFile is the path WriteViewZone writes the zone's file of a
// view to: <Dir>/viewzones/<view>/<zone>.zone, outside ZoneDir (the zone
// API's directory), so that two views may hold zones of the same name
// and the API never takes such a file for one of its own.
func (s *Server) ViewZoneFile(view, zone string) string {
	return filepath.Join(s.Dir, "viewzones", view, strings.TrimSuffix(zone, ".")+".zone")
}

// WriteViewZone writes a zone file for a zone of a view (ViewZoneFile)
// and returns its path. Call it before Start's named loads the zone (for
// a zone in View.Config, write it from Options.BeforeStart), or add the
// zone with rndc afterwards.
func (s *Server) WriteViewZone(view, zone, content string) (string, error) {
	p := s.ViewZoneFile(view, zone)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, []byte(content), 0o644)
}

// ZoneStatement returns a primary zone statement for named.conf (or
// View.Config) of zone with its file at path; allowUpdateKey, when set,
// is the key the zone accepts dynamic updates from.
func ZoneStatement(zone, path, allowUpdateKey string) string {
	au := ""
	if allowUpdateKey != "" {
		au = fmt.Sprintf(" allow-update { key %q; };", allowUpdateKey)
	}
	return fmt.Sprintf("zone %q { type primary; file %q;%s };\n", strings.TrimSuffix(zone, "."), path, au)
}

// Query asks this named for name's RRset of type qtype over TCP, as a
// client of view: signed with the view's key when it has one, else sent
// from the view's first match-clients element that is an address (e.g.
// 127.0.0.2); the empty view, or one with neither, sends the query
// unsigned from 127.0.0.1. It returns the answer section's records.
func (s *Server) Query(view, name string, qtype uint16) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: "tcp", Timeout: 3 * time.Second}
	if k, ok := s.ViewKeys[view]; ok && view != "" {
		m.SetTsig(dns.Fqdn(k.Name), dns.Fqdn(k.Algorithm), 300, time.Now().Unix())
		c.TsigSecret = map[string]string{dns.Fqdn(k.Name): k.Secret}
	} else if src := s.viewSource(view); src != nil {
		c.Dialer = &net.Dialer{LocalAddr: &net.TCPAddr{IP: src}}
	}
	r, _, err := c.Exchange(m, s.DNSAddr)
	if err != nil {
		return nil, err
	}
	if r.Rcode != dns.RcodeSuccess {
		return nil, fmt.Errorf("query %s %s in view %q: %s", name, dns.TypeToString[qtype], view, dns.RcodeToString[r.Rcode])
	}
	return r.Answer, nil
}

// viewSource returns the first match-clients address of view, or nil.
func (s *Server) viewSource(view string) net.IP {
	for _, v := range s.opts.Views {
		if v.Name != view {
			continue
		}
		for _, m := range v.MatchClients {
			if ip := net.ParseIP(m); ip != nil {
				return ip
			}
		}
	}
	return nil
}
