package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// statsZones is the part of /json/v1/zones the inventory reads.
type statsZones struct {
	Views map[string]struct {
		Zones []struct {
			Name   string          `json:"name"`
			Class  string          `json:"class"`
			Serial json.RawMessage `json:"serial"`
			Type   string          `json:"type"`
		} `json:"zones"`
	} `json:"views"`
}

// Parse reads the statistics channel's /json/v1/zones: the zones of class
// IN of every view but _bind, without built-in zones, sorted by name then
// view, and the views.
func Parse(body []byte) ([]Zone, []string, error) {
	var st statsZones
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, nil, fmt.Errorf("reading named's statistics: %w", err)
	}
	if st.Views == nil {
		return nil, nil, errors.New("reading named's statistics: no views in the answer (is it /json/v1/zones?)")
	}
	// Sized once, and each type's string shared: they are kept, 100,000
	// of them at 100,000 zones.
	n := 0
	for _, v := range st.Views {
		n += len(v.Zones)
	}
	zones := make([]Zone, 0, n)
	types := map[string]string{}
	var views []string
	for view, v := range st.Views {
		if view == "_bind" {
			continue
		}
		views = append(views, view)
		for _, z := range v.Zones {
			if z.Class != "IN" || z.Type == "builtin" || z.Name == "" {
				continue
			}
			typ, ok := types[z.Type]
			if !ok {
				typ = z.Type
				types[typ] = typ
			}
			zone := Zone{Name: strings.ToLower(strings.TrimSuffix(z.Name, ".")), View: view, Type: typ}
			if zone.Name == "" {
				zone.Name = "."
			}
			var n int64
			if err := json.Unmarshal(z.Serial, &n); err == nil && n >= 0 && n <= 1<<32-1 {
				zone.Serial, zone.HasSerial = uint32(n), true
			}
			zones = append(zones, zone)
		}
	}
	sort.Strings(views)
	sort.Slice(zones, func(i, j int) bool {
		if zones[i].Name != zones[j].Name {
			return zones[i].Name < zones[j].Name
		}
		return zones[i].View < zones[j].View
	})
	return zones, views, nil
}
