package zoneservice

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// checkLoaded asks named whether it has the managed primary zone loaded
// and, when it does not, says why and repairs what is safe to repair: a
// journal that is empty (named was killed as it created it, at the zone's
// first update, and now refuses to load the zone: "journal open failed")
// holds nothing, so it is removed and the zone reloaded. Anything else
// (a journal with content, a file named cannot read) is reported, not
// touched. It takes the zone's lock.
func (s *Service) checkLoaded(ctx context.Context, name string, rep *Report) {
	st, err := s.Control.ZoneStatus(ctx, name)
	switch {
	case err == nil && st.Loaded:
		return
	case err != nil && !notLoaded(err):
		rep.Pending = append(rep.Pending, Fix{Zone: name, Action: "check", Detail: err.Error()})
		return
	}
	unlock, err := s.lock(ctx, name)
	if err != nil {
		rep.Pending = append(rep.Pending, Fix{Zone: name, Action: "check", Detail: err.Error()})
		return
	}
	defer unlock()
	removed, err := s.Store.RemoveEmptyJournals(name)
	if err != nil {
		rep.Problems = append(rep.Problems, Fix{Zone: name, Action: ProblemNotLoaded, Detail: "named does not load this zone; " + err.Error()})
		return
	}
	if len(removed) > 0 {
		_, rerr := s.Control.Reload(ctx, name)
		st, err := s.Control.ZoneStatus(ctx, name)
		if rerr == nil && err == nil && st.Loaded {
			detail := "named did not load the zone: its journal " + strings.Join(removed, ", ") +
				" was empty (named was killed as it created it); removed it and reloaded the zone"
			rep.Fixed = append(rep.Fixed, Fix{Zone: name, Action: ActionRemovedEmptyJournal, Detail: detail})
			s.log().Warn("removed an empty journal named could not load a zone with, and reloaded the zone", zap.String("zone", name), zap.Strings("journals", removed))
			return
		}
		if rerr == nil {
			rerr = err
		}
		if rerr == nil {
			rerr = fmt.Errorf("named still does not load it")
		}
		rep.Problems = append(rep.Problems, Fix{Zone: name, Action: ProblemNotLoaded,
			Detail: "named does not load this zone; its empty journal was removed but the reload failed: " + rerr.Error()})
		return
	}
	why := "named does not load this managed primary zone (see named's log for the zone)"
	js, _ := s.Store.Journals(name)
	if len(js) > 0 {
		var parts []string
		for p, n := range js {
			parts = append(parts, fmt.Sprintf("%s (%d bytes)", p, n))
		}
		sort.Strings(parts)
		why += "; its journal " + strings.Join(parts, ", ") + " may be damaged: moving it aside and reloading the zone (POST /api/v1/zones/" + name +
			"/reload) loads the zone file without the changes the journal holds"
	}
	rep.Problems = append(rep.Problems, Fix{Zone: name, Action: ProblemNotLoaded, Detail: why})
	s.log().Error("named does not load a managed zone", zap.String("zone", name), zap.String("why", why))
}

// notLoaded reports whether err is named saying the zone is not loaded.
func notLoaded(err error) bool {
	var re *rndc.Error
	return errors.As(err, &re) && strings.Contains(re.Err+" "+re.Text, "not loaded")
}
