package inventory

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// learn classifies zones by Status, at most Parallel at once and Rate a
// second, records what it learns in learnedSrc, and then publishes a copy
// of the snapshot with the sources learned. Zones a refresh no longer finds
// are not asked. It closes done when it ends.
func (inv *Inventory) learn(zones []Zone, done chan struct{}) {
	defer close(done)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(len(zones))*time.Second+time.Minute)
	defer cancel()
	par := inv.Parallel
	if par <= 0 {
		par = 4
	}
	tick := time.NewTicker(time.Second / time.Duration(inv.rate()))
	defer tick.Stop()
	work := make(chan Zone)
	var wg sync.WaitGroup
	for w := 0; w < min(par, len(zones)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for z := range work {
				inv.StatusCalls.Add(1)
				re, err := inv.Status(ctx, z.Name, z.View)
				src := SourceNamedConf
				switch {
				case err != nil:
					inv.log().Debug("zonestatus for the inventory failed", zap.String("zone", z.Name), zap.String("view", z.View), zap.Error(err))
					continue
				case re:
					src = SourceNZD
				}
				inv.mu.Lock()
				if inv.learnedSrc == nil {
					inv.learnedSrc = map[forgetKey]string{}
				}
				inv.learnedSrc[forgetKey{z.Name, z.View}] = src
				inv.mu.Unlock()
			}
		}()
	}
	for i, z := range zones {
		if i > 0 {
			<-tick.C
		}
		inv.mu.Lock()
		known, present := false, false
		if inv.snap != nil {
			var cur Zone
			cur, present = inv.snap.Find(z.Name, z.View)
			known = present && cur.Source != ""
		}
		inv.mu.Unlock()
		if known || !present {
			continue
		}
		work <- z
	}
	close(work)
	wg.Wait()
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.learning = false
	learned := inv.learnedSrc
	inv.learnedSrc = nil
	if inv.snap == nil {
		return
	}
	old := inv.snap
	rs, ch := old.learned(learned)
	inv.snapGen++
	inv.snap = &Snapshot{rows: rs, Views: old.Views, Taken: old.Taken, Gen: inv.snapGen, Kept: old.Kept, asked: old.asked,
		Forgotten: old.Forgotten, fg: old.fg, nGone: old.nGone}
	inv.snap.changed = ch.after(old, len(rs.rs))
	inv.save()
}

func (inv *Inventory) rate() int {
	if inv.Rate <= 0 {
		return 200
	}
	return inv.Rate
}

// learned returns r with the sources learned of its zones of none: the
// rows copied (their strings shared), a row a zone; and the names of the
// zones it gave a source.
func (r *rows) learned(learned map[forgetKey]string) (rows, changes) {
	var ch changes
	out := rows{rs: slices.Clone(r.rs), strs: slices.Clone(r.strs)}
	at := map[string]uint16{}
	for i, s := range out.strs {
		at[s] = uint16(i)
	}
	for i := range out.rs {
		w := &out.rs[i]
		if w.src != 0 {
			continue
		}
		src, ok := learned[forgetKey{w.name, out.strs[w.view]}]
		if !ok || src == "" {
			continue
		}
		k, ok := at[src]
		if !ok {
			if len(out.strs) > 1<<16-1 {
				continue
			}
			k = uint16(len(out.strs))
			out.strs = append(out.strs, src)
			at[src] = k
		}
		w.src = k
		ch.add(w.name)
	}
	return out, ch
}
