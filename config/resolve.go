package config

import (
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/statschannel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// Defaults used when the configuration leaves a value out.
const (
	DefaultRNDCServer  = "127.0.0.1:953"
	DefaultRNDCTimeout = 10 * time.Second
	DefaultDNSServer   = "127.0.0.1:53"
)

// Settings are the options resolved (Options.Resolve): placeholders
// expanded, defaults filled in, each option checked on its own.
// Validate checks what needs them together.
type Settings struct {
	// ZoneDir is zone_dir, expanded and made absolute ("": not set).
	ZoneDir string
	// RNDCServer is the host:port of named's control channel, and
	// RNDCTimeout bounds each control command.
	RNDCServer  string
	RNDCTimeout time.Duration
	// RNDCKey is the rndc key as configured (its file is read when the
	// handler first needs it).
	RNDCKey KeyConfig
	// UpdateKey is the TSIG key of the root's updates (nil: none): the
	// default view's when it has one, else update_key.
	UpdateKey *KeyConfig
	// DNSServer is the host:port of named's DNS port: the default
	// view's when it has one, else dns_server.
	DNSServer string
	// SerialMethod is serial_update_method.
	SerialMethod dnsupdate.SerialMethod
	// StatsURL is the statistics channel's URL ("": none).
	StatsURL string
	// Catalog is the catalog option, checked (zero: none).
	Catalog zoneservice.CatalogSettings
	// Views is the views option, checked (zero: none).
	Views Views
	// PrimaryNets and NotifyNets are allowed_primaries and
	// allowed_notify.
	PrimaryNets auth.Networks
	NotifyNets  auth.Networks
	// History is the history option (nil: on, with its defaults).
	History *HistoryConfig
}

// Resolve expands the options' placeholders, fills in the defaults and
// checks each option's syntax; it neither reads key files nor contacts
// BIND, and touches no disk.
func (o *Options) Resolve() (*Settings, error) {
	repl := caddy.NewReplacer()
	s := &Settings{ZoneDir: repl.ReplaceKnown(o.ZoneDir, ""), History: o.History}
	if s.ZoneDir != "" {
		abs, err := filepath.Abs(s.ZoneDir)
		if err != nil {
			return nil, fmt.Errorf("zone_dir: %v", err)
		}
		s.ZoneDir = abs
	}

	s.RNDCServer = DefaultRNDCServer
	s.RNDCTimeout = DefaultRNDCTimeout
	if o.RNDC != nil {
		// A placeholder that expands to nothing (an unset {env.X}) means
		// the default, as an absent option does.
		if v := repl.ReplaceKnown(o.RNDC.Server, ""); v != "" {
			s.RNDCServer = v
		}
		if o.RNDC.Timeout > 0 {
			s.RNDCTimeout = time.Duration(o.RNDC.Timeout)
		}
		s.RNDCKey = o.RNDC.Key
	}
	if o.UpdateKey != nil {
		k := *o.UpdateKey
		s.UpdateKey = &k
	}
	s.DNSServer = DefaultDNSServer
	if v := repl.ReplaceKnown(o.DNSServer, ""); v != "" {
		s.DNSServer = v
	}
	var err error
	if s.StatsURL, err = statschannel.URL(repl.ReplaceKnown(o.StatisticsChannel, "")); err != nil {
		return nil, err
	}
	if s.SerialMethod, err = dnsupdate.ParseSerialMethod(o.SerialUpdateMethod); err != nil {
		return nil, fmt.Errorf("serial_update_method: %v", err)
	}
	if s.Catalog, err = o.Catalog.Settings(o.UpdateKey); err != nil {
		return nil, err
	}
	if s.Views, err = newViews(o.Views, &s.UpdateKey, &s.DNSServer, s.Catalog.Zone); err != nil {
		return nil, err
	}
	if s.PrimaryNets, err = auth.PrimariesPolicy.Parse(o.AllowedPrimaries); err != nil {
		return nil, err
	}
	if s.NotifyNets, err = auth.NotifyPolicy.Parse(o.AllowedNotify); err != nil {
		return nil, err
	}
	return s, nil
}

// Validate checks the settings without touching the disk or BIND: the
// history option, that zone_dir is set, the addresses, the keys and the
// views.
func (s *Settings) Validate() error {
	if err := s.History.Validate(); err != nil {
		return err
	}
	if s.ZoneDir == "" {
		return fmt.Errorf("zone_dir is required")
	}
	if _, _, err := net.SplitHostPort(s.RNDCServer); err != nil {
		return fmt.Errorf("rndc server %q: %v", s.RNDCServer, err)
	}
	if _, _, err := net.SplitHostPort(s.DNSServer); err != nil {
		return fmt.Errorf("dns_server %q: %v", s.DNSServer, err)
	}
	if err := s.RNDCKey.Validate("rndc key", true); err != nil {
		return err
	}
	if s.UpdateKey != nil {
		if err := s.UpdateKey.Validate("update key", false); err != nil {
			return err
		}
	}
	return s.Views.validate()
}
