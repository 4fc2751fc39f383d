package rndc

import (
	"errors"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ServerStatus is the parsed output of "rndc status" (the zone model's
// type, which front ends read).
type ServerStatus = zonemodel.ServerStatus

// ParseStatus parses the output of "rndc status". Unknown lines are kept
// in Fields (when they have the "key: value" form) and never cause errors.
func ParseStatus(text string) *ServerStatus {
	s := &ServerStatus{Raw: text, Fields: fields(text)}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "server is up and running":
			s.ServerUp = true
		case strings.HasPrefix(line, "query logging is "):
			s.QueryLogging = strings.TrimPrefix(line, "query logging is ")
		}
	}
	f := s.Fields
	s.Version = f["version"]
	s.BootTime = f["boot time"]
	s.LastConfigured = f["last configured"]
	s.NumberOfZones = leadingInt(f["number of zones"])
	s.DebugLevel = leadingInt(f["debug level"])
	s.XfersRunning = leadingInt(f["xfers running"])
	s.XfersDeferred = leadingInt(f["xfers deferred"])
	s.SOAQueries = leadingInt(f["soa queries in progress"])
	s.RecursiveClients = f["recursive clients"]
	s.TCPClients = f["tcp clients"]
	return s
}

// ZoneStatus is the parsed output of "rndc zonestatus" (the zone
// model's type, which front ends read).
type ZoneStatus = zonemodel.ZoneStatus

// ParseZoneStatus parses the output of "rndc zonestatus". It fails when
// the text has no "name:" line.
func ParseZoneStatus(text string) (*ZoneStatus, error) {
	f := fields(text)
	z := &ZoneStatus{Raw: text, Fields: f}
	name, ok := f["name"]
	if !ok {
		return nil, errors.New("not a zonestatus output: no name line")
	}
	z.Name = name
	z.Type = f["type"]
	if files := f["files"]; files != "" {
		for _, p := range strings.Split(files, ", ") {
			if p = strings.TrimSpace(p); p != "" {
				z.Files = append(z.Files, p)
			}
		}
	}
	if v, ok := f["serial"]; ok {
		if n, err := strconv.ParseUint(v, 10, 32); err == nil {
			z.Serial, z.HasSerial = uint32(n), true
		}
	}
	if v, ok := f["signed serial"]; ok {
		if n, err := strconv.ParseUint(v, 10, 32); err == nil {
			z.SignedSerial = uint32(n)
		}
	}
	z.Nodes = leadingInt(f["nodes"])
	z.LastLoaded = f["last loaded"]
	z.Loaded = z.HasSerial || z.LastLoaded != ""
	z.Secure = f["secure"] == "yes"
	z.Dynamic = f["dynamic"] == "yes"
	z.Frozen = f["frozen"] == "yes"
	z.InlineSigning = f["inline signing"] == "yes"
	z.Reconfigurable = f["reconfigurable via modzone"] == "yes"
	return z, nil
}

// fields collects "key: value" lines; the first occurrence of a key wins.
func fields(text string) map[string]string {
	m := make(map[string]string)
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimRight(line, "\r"), ": ")
		if !ok {
			if k2, ok2 := strings.CutSuffix(strings.TrimSpace(line), ":"); ok2 && k2 != "" {
				k, v, ok = k2, "", true
			}
		}
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if _, dup := m[k]; !dup && k != "" {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// leadingInt parses the integer at the start of s ("3 (0 automatic)" → 3),
// or returns 0.
func leadingInt(s string) int {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}
