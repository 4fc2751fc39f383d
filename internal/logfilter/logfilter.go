// Package logfilter parses RUST_LOG-style log filters ("info,zone_api::rndc=debug")
// and applies them to zap cores: a default level and per-target levels,
// matched by the longest logger-name prefix, with a trace level below zap's
// debug carried on ".trace" sub-loggers. The zone_api handler wraps its
// logger's core with one; Caddy's own log level must still admit the
// entries.
package logfilter

import (
	"fmt"
	"sort"
	"strings"

	"go.uber.org/zap/zapcore"
)

// Logger names (targets) of the module. In RUST_LOG directives they may be
// written in Rust style (zone_api, zone_api::rndc) or as Caddy logger names
// (http.handlers.zone_api, http.handlers.zone_api.rndc).
const (
	loggerBase = "http.handlers.zone_api"
	// traceSuffix names the sub-logger that carries trace events (wire-level
	// detail) at zap's debug level; the filter admits it only under trace.
	traceSuffix = ".trace"
)

// Targets lists the module's log targets in Rust style, as documented.
var Targets = []string{"zone_api", "zone_api::http", "zone_api::auth", "zone_api::rndc", "zone_api::dns"}

// Level is a log level of a RUST_LOG directive. Trace is below zap's
// debug level; Off is above every level.
type Level int8

// The levels of RUST_LOG, lowest first.
const (
	LevelTrace Level = Level(zapcore.DebugLevel) - 1
	LevelDebug Level = Level(zapcore.DebugLevel)
	LevelInfo  Level = Level(zapcore.InfoLevel)
	LevelWarn  Level = Level(zapcore.WarnLevel)
	LevelError Level = Level(zapcore.ErrorLevel)
	LevelOff   Level = Level(zapcore.FatalLevel) + 1
)

var levelNames = map[string]Level{
	"trace": LevelTrace, "debug": LevelDebug, "info": LevelInfo,
	"warn": LevelWarn, "error": LevelError, "off": LevelOff,
}

// Filter is a parsed RUST_LOG value: a default level and per-target
// levels, matched by the longest target prefix of a logger name.
type Filter struct {
	Default Level
	// rules maps Caddy logger names to levels, longest first.
	rules []filterRule
	// Ignored lists directives whose target is not one of the module's;
	// they cannot match its loggers.
	Ignored []string
}

type filterRule struct {
	target string
	level  Level
}

// Parse parses a RUST_LOG value such as
// "info,zone_api::rndc=debug". An empty value means info. Levels are
// error, warn, info, debug, trace and off, in any case.
func Parse(s string) (*Filter, error) {
	f := &Filter{Default: LevelInfo}
	seenDefault := false
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		target, lvl, hasTarget := strings.Cut(part, "=")
		if !hasTarget {
			// A bare word is the default level, or a target at trace level
			// as in env_logger ("zone_api" alone means zone_api=trace).
			if l, ok := levelNames[strings.ToLower(part)]; ok {
				if seenDefault {
					return nil, fmt.Errorf("RUST_LOG %q: more than one default level", s)
				}
				f.Default, seenDefault = l, true
				continue
			}
			// A bare word outside the module is most likely a misspelt
			// level: refuse it rather than ignore it.
			if name, ok := loggerName(part); !ok || name == "" {
				return nil, fmt.Errorf("RUST_LOG %q: %q is neither a level (error, warn, info, debug, trace, off) nor a target of this module (%s)", s, part, strings.Join(Targets, ", "))
			}
			target, lvl = part, "trace"
		}
		target, lvl = strings.TrimSpace(target), strings.TrimSpace(lvl)
		l, ok := levelNames[strings.ToLower(lvl)]
		if !ok {
			return nil, fmt.Errorf("RUST_LOG %q: unknown level %q in %q (want error, warn, info, debug, trace or off)", s, lvl, part)
		}
		name, ok := loggerName(target)
		if !ok {
			return nil, fmt.Errorf("RUST_LOG %q: malformed target %q in %q", s, target, part)
		}
		if name == "" {
			f.Ignored = append(f.Ignored, part)
			continue
		}
		f.rules = append(f.rules, filterRule{target: name, level: l})
	}
	sort.SliceStable(f.rules, func(i, j int) bool { return len(f.rules[i].target) > len(f.rules[j].target) })
	return f, nil
}

// loggerName maps a directive target to a Caddy logger name: zone_api and
// zone_api::x become http.handlers.zone_api(.x); Caddy names are kept. It
// returns "" for a well-formed target outside the module, and false for a
// malformed one.
func loggerName(target string) (string, bool) {
	if target == "" {
		return "", false
	}
	for _, r := range target {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':') {
			return "", false
		}
	}
	t := strings.ReplaceAll(target, "::", ".")
	if strings.Contains(t, ":") || strings.HasPrefix(t, ".") || strings.HasSuffix(t, ".") || strings.Contains(t, "..") {
		return "", false
	}
	if t == "zone_api" || strings.HasPrefix(t, "zone_api.") {
		t = "http.handlers." + t
	}
	if t == loggerBase || strings.HasPrefix(t, loggerBase+".") {
		return t, true
	}
	return "", true
}

// levelFor returns the level in force for a logger name.
func (f *Filter) levelFor(name string) Level {
	for _, r := range f.rules {
		if name == r.target || strings.HasPrefix(name, r.target+".") {
			return r.level
		}
	}
	return f.Default
}

// admits reports whether an entry at lvl on the named logger passes.
// Entries on a ".trace" logger count as trace level.
func (f *Filter) admits(name string, lvl zapcore.Level) bool {
	l := Level(lvl)
	if base, ok := strings.CutSuffix(name, traceSuffix); ok {
		name, l = base, LevelTrace
	}
	return l >= f.levelFor(name)
}

// minLevel is the lowest level any rule admits, for Enabled.
func (f *Filter) minLevel() Level {
	m := f.Default
	for _, r := range f.rules {
		if r.level < m {
			m = r.level
		}
	}
	return m
}

// Wrap returns a core that drops what f does not admit.
func (f *Filter) Wrap(c zapcore.Core) zapcore.Core {
	return &filterCore{Core: c, f: f}
}

// filterCore applies a Filter in front of another core.
type filterCore struct {
	zapcore.Core
	f *Filter
}

func (c *filterCore) Enabled(lvl zapcore.Level) bool {
	min := c.f.minLevel()
	if min < LevelDebug {
		min = LevelDebug // trace entries travel at debug
	}
	return Level(lvl) >= min && c.Core.Enabled(lvl)
}

func (c *filterCore) With(fields []zapcore.Field) zapcore.Core {
	return &filterCore{Core: c.Core.With(fields), f: c.f}
}

func (c *filterCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if !c.f.admits(ent.LoggerName, ent.Level) {
		return ce
	}
	return c.Core.Check(ent, ce)
}

// Interface guards
var _ zapcore.Core = (*filterCore)(nil)
