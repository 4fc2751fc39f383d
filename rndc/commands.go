package rndc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidZoneName reports whether zone is safe to put on an rndc command
// line: a DNS name of letters, digits, '.', '_', '-' and '/' (RFC 2317's
// 0/25.2.0.192.in-addr.arpa: named reads it as one word; a trailing dot is
// allowed, and "." means the root zone), no empty label, no label starting
// with '-', labels of at most 63 and names of at most 253 characters.
// Anything else (spaces, quotes, braces, semicolons) is rejected, so a zone
// name cannot smuggle extra arguments or configuration into a command.
func ValidZoneName(zone string) error {
	if zone == "." {
		return nil
	}
	name := strings.TrimSuffix(zone, ".")
	if name == "" {
		return errors.New("empty zone name")
	}
	if len(name) > 253 {
		return fmt.Errorf("zone name too long (%d characters)", len(name))
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return fmt.Errorf("invalid zone name %q: empty label", zone)
		}
		if len(label) > 63 {
			return fmt.Errorf("invalid zone name %q: label longer than 63 characters", zone)
		}
		if label[0] == '-' {
			return fmt.Errorf("invalid zone name %q: label starts with '-'", zone)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '/') {
				r, _ := utf8.DecodeRuneInString(label[i:])
				return fmt.Errorf("invalid zone name %q: character %q not allowed", zone, r)
			}
		}
	}
	return nil
}

// zoneCommandIn validates zone and view and runs "verb [flags...] zone",
// or "verb [flags...] zone IN view" when view is set.
func (c *Client) zoneCommandIn(ctx context.Context, verb, zone, view string, flags ...string) (*Response, error) {
	arg, err := ZoneArg(zone, view)
	if err != nil {
		return nil, fmt.Errorf("rndc %s: %w", verb, err)
	}
	parts := append([]string{verb}, flags...)
	parts = append(parts, arg)
	return c.Command(ctx, strings.Join(parts, " "))
}

// text returns the response text, or "" when resp is nil.
func text(resp *Response) string {
	if resp == nil {
		return ""
	}
	return resp.Text
}

// Status runs "status" and parses its output.
func (c *Client) Status(ctx context.Context) (*ServerStatus, error) {
	resp, err := c.Command(ctx, "status")
	if err != nil {
		return nil, err
	}
	return ParseStatus(resp.Text), nil
}

// ZoneStatus runs "zonestatus <zone>" and parses its output. An unknown
// zone gives an error for which IsNotFound is true.
func (c *Client) ZoneStatus(ctx context.Context, zone string) (*ZoneStatus, error) {
	return c.zoneStatus(ctx, zone, "")
}

func (c *Client) zoneStatus(ctx context.Context, zone, view string) (*ZoneStatus, error) {
	resp, err := c.zoneCommandIn(ctx, "zonestatus", zone, view)
	if err != nil {
		return nil, err
	}
	zs, err := ParseZoneStatus(resp.Text)
	if err != nil {
		return nil, fmt.Errorf("rndc zonestatus: %w", err)
	}
	return zs, nil
}

// ShowZone runs "showzone <zone>" and returns the zone statement as named
// prints it, e.g. `zone "example.com" { type primary; file "..."; };`.
func (c *Client) ShowZone(ctx context.Context, zone string) (string, error) {
	return c.showZone(ctx, zone, "")
}

func (c *Client) showZone(ctx context.Context, zone, view string) (string, error) {
	resp, err := c.zoneCommandIn(ctx, "showzone", zone, view)
	return strings.TrimSpace(text(resp)), err
}

// AddZone runs "addzone <zone> <block>" for the statement zs: its Name
// names the zone, its Block is the configuration (Extra is not sent). An
// existing zone gives an error for which IsAlreadyExists is true.
func (c *Client) AddZone(ctx context.Context, zs *ZoneStatement) (string, error) {
	return c.statementCommand(ctx, "addzone", zs, "")
}

// statementCommand runs "verb <zone> [IN <view>] <block>" (addzone,
// modzone) for the statement zs.
func (c *Client) statementCommand(ctx context.Context, verb string, zs *ZoneStatement, view string) (string, error) {
	arg, err := ZoneArg(zs.Name, view)
	if err != nil {
		return "", fmt.Errorf("rndc %s: %w", verb, err)
	}
	resp, err := c.Command(ctx, verb+" "+arg+" "+zs.Block())
	return text(resp), err
}

// DelZone runs "delzone <zone>", or "delzone -clean <zone>" when clean is
// true (named then also removes the zone's files).
func (c *Client) DelZone(ctx context.Context, zone string, clean bool) (string, error) {
	return c.delZone(ctx, zone, "", clean)
}

func (c *Client) delZone(ctx context.Context, zone, view string, clean bool) (string, error) {
	var flags []string
	if clean {
		flags = append(flags, "-clean")
	}
	resp, err := c.zoneCommandIn(ctx, "delzone", zone, view, flags...)
	return text(resp), err
}

// Reload runs "reload <zone>", or "reload" (configuration and all zones)
// when zone is "".
func (c *Client) Reload(ctx context.Context, zone string) (string, error) {
	return c.optionalZone(ctx, "reload", zone, "")
}

// Freeze runs "freeze <zone>", or "freeze" (all dynamic zones) when zone is
// "".
func (c *Client) Freeze(ctx context.Context, zone string) (string, error) {
	return c.optionalZone(ctx, "freeze", zone, "")
}

// Thaw runs "thaw <zone>", or "thaw" (all frozen zones) when zone is "".
func (c *Client) Thaw(ctx context.Context, zone string) (string, error) {
	return c.optionalZone(ctx, "thaw", zone, "")
}

// Notify runs "notify <zone>", which queues NOTIFY messages to the zone's
// secondaries.
func (c *Client) Notify(ctx context.Context, zone string) (string, error) {
	return c.textCommand(ctx, "notify", zone, "")
}

// LoadKeys runs "loadkeys <zone>": named reads the zone's keys from its
// key directory and, for a zone with a dnssec-policy, runs its key
// manager now (which makes and publishes the keys the policy wants).
func (c *Client) LoadKeys(ctx context.Context, zone string) (string, error) {
	return c.textCommand(ctx, "loadkeys", zone, "")
}

// textCommand runs "verb zone [IN view]" and returns named's text.
func (c *Client) textCommand(ctx context.Context, verb, zone, view string) (string, error) {
	resp, err := c.zoneCommandIn(ctx, verb, zone, view)
	return text(resp), err
}

// optionalZone runs "verb zone [IN view]", or "verb" (every zone of the
// server, in every view) when zone is "".
func (c *Client) optionalZone(ctx context.Context, verb, zone, view string) (string, error) {
	if zone == "" {
		resp, err := c.Command(ctx, verb)
		return text(resp), err
	}
	return c.textCommand(ctx, verb, zone, view)
}
