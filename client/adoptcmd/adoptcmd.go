// Package adoptcmd registers `caddy zoneapi-adopt`, which brings every
// zone an existing BIND server serves outside the API under the API's
// management in one command: it lists the zones the API does not manage
// (GET /api/v1/zones?all=true&managed=false) and adopts each (POST
// /api/v1/zones/{name}/adopt), a few at a time, then reports what it did.
// Zones of named.conf, which the API cannot adopt, are reported with the
// clause the API names for them. It is a client of the API (package
// client): it works against any zone_api server it can reach. The root
// package imports it, so every build of the module has the command.
package adoptcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/zoneapi/caddy-zoneapi/client"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "zoneapi-adopt",
		Usage: "--url <api url> [--token-file <file>] [--grant-update-key] [--view <view>] [--match <glob>] [--dry-run] [--parallel <n>]",
		Short: "Adopts every zone a BIND server serves outside the zone API",
		Long: `
Lists the zones the zone_api server at --url does not manage (every zone
named serves, from its statistics channel: GET /api/v1/zones?all=true
&managed=false) and adopts each one (POST /api/v1/zones/{name}/adopt): its
index entry and catalog membership are added, without reloading the zone.
Zones of named.conf cannot be adopted: each is reported with the clause the
API names for it. The token is read from --token-file, else from the
environment variable ZONEAPI_TOKEN.

  caddy zoneapi-adopt --url https://dns.example.com:8443 --token-file ./token \
      --grant-update-key --match '*.example.com' --dry-run

--grant-update-key adds the API's update key to each zone's allow-update by
modzone, so that the record endpoints work on it. --dry-run only lists what
would be adopted. The command exits with status 1 when an adoption failed
for another reason than named.conf.
`,
		CobraFunc: func(cmd *cobra.Command) {
			f := cmd.Flags()
			f.String("url", "", "the API's address, e.g. https://dns.example.com:8443 (required)")
			f.String("token-file", "", "a file holding the bearer token (default: $ZONEAPI_TOKEN)")
			f.Bool("grant-update-key", false, "grant the API's update key to each zone (modzone)")
			f.String("view", "", "only the zones of this view")
			f.String("match", "", "only the zones whose name matches this glob, e.g. *.example.com")
			f.Bool("dry-run", false, "list what would be adopted, adopt nothing")
			f.Int("parallel", 4, "adoptions at once")
			cmd.RunE = func(cmd *cobra.Command, _ []string) error {
				cmd.SilenceUsage = true
				var o Options
				o.URL, _ = f.GetString("url")
				tokenFile, _ := f.GetString("token-file")
				o.Grant, _ = f.GetBool("grant-update-key")
				o.View, _ = f.GetString("view")
				o.Match, _ = f.GetString("match")
				o.DryRun, _ = f.GetBool("dry-run")
				o.Parallel, _ = f.GetInt("parallel")
				token := os.Getenv("ZONEAPI_TOKEN")
				if tokenFile != "" {
					b, err := os.ReadFile(tokenFile)
					if err != nil {
						return fmt.Errorf("--token-file: %w", err)
					}
					token = strings.TrimSpace(string(b))
				}
				if o.URL == "" {
					return errors.New("--url is required")
				}
				c, err := client.New(o.URL, token)
				if err != nil {
					return err
				}
				rep, err := Run(cmd.Context(), c, o, cmd.OutOrStdout())
				if err != nil {
					return err
				}
				if rep.Failed > 0 {
					return fmt.Errorf("%d adoptions failed", rep.Failed)
				}
				return nil
			}
		},
	})
}

// Options select and shape the adoptions.
type Options struct {
	// URL is the API's address (the command's flag; Run does not use it).
	URL string
	// Grant asks each adoption to grant the API's update key.
	Grant bool
	// View keeps the zones of one view; Match those whose name matches
	// the glob (path.Match).
	View, Match string
	// DryRun lists the zones, adopting none.
	DryRun bool
	// Parallel is how many adoptions run at once (default 4).
	Parallel int
}

// Report counts what Run did.
type Report struct {
	Adopted, AlreadyManaged, NamedConf, Failed, Candidates int
}

// Run adopts the zones c's server does not manage, as o selects, writing
// one line per zone and a summary to out.
func Run(ctx context.Context, c *client.Client, o Options, out io.Writer) (*Report, error) {
	if o.Match != "" {
		if _, err := path.Match(o.Match, ""); err != nil {
			return nil, fmt.Errorf("--match %q: %w", o.Match, err)
		}
	}
	no := false
	var zones []client.ZoneEntry
	for z, err := range c.AllZones(ctx, client.ListZonesOptions{All: true, Managed: &no, View: o.View, Limit: 1000}) {
		if err != nil {
			return nil, fmt.Errorf("listing the zones the API does not manage: %w", err)
		}
		if ok, _ := path.Match(o.Match, z.Name); o.Match == "" || ok {
			zones = append(zones, z)
		}
	}
	rep := &Report{Candidates: len(zones)}
	if o.DryRun {
		for _, z := range zones {
			fmt.Fprintf(out, "would adopt %s (view %s, %s)\n", z.Name, z.View, z.Source)
		}
		fmt.Fprintf(out, "%d zones not managed by the API (dry run: nothing adopted)\n", len(zones))
		return rep, nil
	}
	par := o.Parallel
	if par <= 0 {
		par = 4
	}
	lines := make([]string, len(zones))
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(par, max(len(zones), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				z := zones[i]
				res, err := c.AdoptZone(ctx, z.Name, o.Grant)
				var ce *client.Error
				mu.Lock()
				switch {
				case errors.As(err, &ce) && ce.StatusCode == 409 && strings.Contains(ce.Message, "managed by the API already"):
					rep.AlreadyManaged++
					lines[i] = z.Name + ": managed already"
				case err == nil:
					rep.Adopted++
					lines[i] = z.Name + ": adopted"
					if res.Granted != "" {
						lines[i] += " (granted: " + res.Granted + ")"
					}
				case errors.As(err, &ce) && ce.StatusCode == 409 && strings.Contains(ce.Message, "named.conf"):
					rep.NamedConf++
					lines[i] = z.Name + ": not adopted: " + ce.Message
				default:
					rep.Failed++
					lines[i] = z.Name + ": FAILED: " + err.Error()
				}
				mu.Unlock()
			}
		}()
	}
	for i := range zones {
		work <- i
	}
	close(work)
	wg.Wait()
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
	fmt.Fprintf(out, "%d zones: %d adopted, %d managed already, %d of named.conf not adopted, %d failed\n",
		len(zones), rep.Adopted, rep.AlreadyManaged, rep.NamedConf, rep.Failed)
	return rep, nil
}
