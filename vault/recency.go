package vault

import (
	"math"
	"slices"
)

// Recency weights: a block at the asked position ("N messages ago") has
// its relevance multiplied by up to 1+agoWeight, falling by e every
// agoWidth messages away; the newest block that matches about as well as
// the best one ("the last run of X") gains lastWeight times the best
// relevance. A conversation other than the asker's, when the asker is
// not named, counts otherWeight as much as the newest conversation.
const (
	agoWeight    = 3.0
	agoWidth     = 2.0
	lastWeight   = 1.5
	lastMatch    = 0.9
	otherWeight  = 0.5
	nearMessages = 4 // blocks this close to the asked position are candidates
)

// stream names one conversation of the vault.
type stream struct{ agent, session string }

// recency is where recency counts from: each conversation's length, and
// the asker's conversation (named by the query, else the newest one).
type recency struct {
	asker stream
	named bool
	now   map[stream]int
}

// weight returns how much recency counts in conversation s.
func (r recency) weight(s stream) float64 {
	switch {
	case s == r.asker:
		return 1
	case r.named:
		return 0
	}
	return otherWeight
}

// lastPerStream is how many of the newest blocks holding a quoted
// command's rarest term each conversation adds to the candidates of a
// "last run of" question.
const lastPerStream = 3

// recencyScope learns each conversation's length and the asker's, and
// returns the ids of the blocks near the asked position, or for "last"
// the newest of cmdDocs (blocks holding the quoted command's rarest term)
// in each conversation that counts; they join the candidates.
func (v *Vault) recencyScope(q Query, p plan, cmdDocs []string) (recency, []string, error) {
	r := recency{asker: stream{q.Agent, q.Session}, now: map[stream]int{}}
	r.named = r.asker != stream{}
	var near []string
	err := v.withPlaces(func(pm *placeMap) {
		if !r.named {
			r.asker = pm.newest
		}
		for s, n := range pm.now {
			r.now[s] = n
		}
		if r.named && q.Now > 0 {
			r.now[r.asker] = q.Now
		}
		if p.ago > 0 {
			for s, refs := range pm.streams {
				if r.weight(s) == 0 {
					continue
				}
				target := r.now[s] - p.ago
				for _, ref := range refs {
					if abs(ref.msg-target) <= nearMessages {
						near = append(near, ref.id)
					}
				}
			}
			return
		}
		newest := map[stream][]posRef{}
		for _, id := range cmdDocs {
			for _, pl := range pm.byID[id] {
				s := stream{pl.Agent, pl.Session}
				if r.weight(s) > 0 && pl.MsgIndex >= 0 {
					newest[s] = keepNewest(newest[s], posRef{pl.MsgIndex, id})
				}
			}
		}
		for _, refs := range newest {
			for _, ref := range refs {
				near = append(near, ref.id)
			}
		}
	})
	slices.Sort(near)
	return r, slices.Compact(near), err
}

// keepNewest adds ref to refs, keeping the lastPerStream newest.
func keepNewest(refs []posRef, ref posRef) []posRef {
	refs = append(refs, ref)
	slices.SortFunc(refs, func(a, b posRef) int { return b.msg - a.msg })
	return refs[:min(len(refs), lastPerStream)]
}

// nearest returns the weight and distance of c's place nearest to ago
// messages before its conversation's end, over the conversations that
// count, and false when none does.
func (r recency) nearest(c *cand, ago int) (w float64, d int, ok bool) {
	for _, pl := range c.meta.Places() {
		s := stream{pl.Agent, pl.Session}
		ws := r.weight(s)
		if ws == 0 || pl.MsgIndex < 0 {
			continue
		}
		ds := abs(pl.MsgIndex - (r.now[s] - ago))
		if !ok || ws > w || ws == w && ds < d {
			w, d, ok = ws, ds, true
		}
	}
	return w, d, ok
}

// apply multiplies the relevance of candidates near the asked position,
// or raises the newest good match of each conversation that counts.
func (r recency) apply(cands []*cand, p plan) {
	if p.ago > 0 {
		for _, c := range cands {
			if w, d, ok := r.nearest(c, p.ago); ok {
				c.rel *= 1 + w*agoWeight*math.Exp(-float64(d)/agoWidth)
			}
		}
		return
	}
	best := map[stream]float64{}
	for _, c := range cands {
		for _, pl := range c.meta.Places() {
			s := stream{pl.Agent, pl.Session}
			best[s] = math.Max(best[s], c.rel)
		}
	}
	type pick struct {
		c  *cand
		at int
	}
	newest := map[stream]pick{}
	for _, c := range cands {
		for _, pl := range c.meta.Places() {
			s := stream{pl.Agent, pl.Session}
			if r.weight(s) > 0 && c.rel > 0 && c.rel >= lastMatch*best[s] && (newest[s].c == nil || pl.MsgIndex > newest[s].at) {
				newest[s] = pick{c, pl.MsgIndex}
			}
		}
	}
	bonus := map[*cand]float64{}
	for s, pk := range newest {
		bonus[pk.c] = math.Max(bonus[pk.c], r.weight(s)*lastWeight*best[s])
	}
	for c, b := range bonus {
		c.rel += b
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
