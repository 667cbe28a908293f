package vault

import "math"

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

// recencyScope reads every block's places to learn each conversation's
// length and the asker's, and returns the blocks near the asked position
// (for "last": those whose command shares a term with the quoted one),
// which join the candidates.
func (v *Vault) recencyScope(q Query, p plan) (recency, []Meta, error) {
	r := recency{asker: stream{q.Agent, q.Session}, now: map[stream]int{}}
	r.named = r.asker != stream{}
	var all []Meta
	var newest Meta
	err := v.List(func(m Meta) error {
		if newest.ID == "" || m.Created.After(newest.Created) || m.Created.Equal(newest.Created) && m.MsgIndex > newest.MsgIndex {
			newest = m
		}
		for _, pl := range m.Places() {
			s := stream{pl.Agent, pl.Session}
			r.now[s] = max(r.now[s], pl.MsgIndex+1)
		}
		all = append(all, m)
		return nil
	})
	if err != nil {
		return r, nil, err
	}
	if !r.named {
		r.asker = stream{newest.Agent, newest.Session}
	} else if q.Now > 0 {
		r.now[r.asker] = q.Now
	}
	var near []Meta
	for _, m := range all {
		c := cand{meta: m}
		if p.last && cmdMatch(p, m.Command) > 0 {
			near = append(near, m)
		} else if _, d, ok := r.nearest(&c, p.ago); p.ago > 0 && ok && d <= nearMessages {
			near = append(near, m)
		}
	}
	return r, near, nil
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
