package vault

import (
	"math"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Ranking weights. A block's relevance is its BM25 score (scaled to the
// best one's) times its kind's prior, plus how well its command matches a
// quoted command and whether it shows the asked line of the asked file;
// recency then multiplies the relevance of blocks near the asked
// position of the asker's conversation.
const (
	candidates   = 200 // BM25 candidates re-ranked
	cmdWeight    = 1.5 // a quoted command's terms all in the block's command
	cmdExact     = 0.5 // and the command is exactly the quoted one
	lineWeight   = 1.5 // the block shows the asked line of the asked file
	agoWeight    = 3.0 // the block is at the asked position
	agoWidth     = 2.0 // messages over which that boost falls by e
	lastWeight   = 1.5 // the newest block that matches as well as the best
	lastMatch    = 0.9 // share of the best match that counts as as well
	nearMessages = 4   // blocks this close to the asked position are candidates
)

// kindPrior weighs blocks by what they are: evidence (tool output,
// observations) first, then what the agent wrote and the task text, and
// last the text every prompt repeats: system prompts, demonstrations,
// pinned instructions, compaction summaries.
func kindPrior(kind string) float64 {
	switch kind {
	case "system", "demo", "pinned", "compaction", "notice":
		return 0.2
	case "user":
		return 0.5
	case "assistant":
		return 0.6
	}
	return 1
}

// stream names one conversation of the vault.
type stream struct{ agent, session string }

// cand is one block being ranked.
type cand struct {
	doc  uint32
	bm25 float64
	meta Meta
	rel  float64
}

// Find ranks blocks for q and returns at most q.K hits, best first (ties:
// newer block first). It never returns block bytes. ctx_search, the vault
// pane's filter and kws vault search all rank through it.
func (v *Vault) Find(q Query) ([]Hit, error) {
	k := q.K
	if k <= 0 {
		k = 10
	}
	if err := v.loadIndex(); err != nil {
		return nil, err
	}
	p := parseQuery(q.Text)
	qterms := append(append([]string(nil), p.terms...), p.cmd...)
	if p.line > 0 && p.file != "" {
		qterms = append(qterms, lineTerm(p.file, p.line))
	}
	if len(qterms) == 0 {
		return nil, nil
	}
	v.idxMu.RLock()
	ix := v.idx
	top := ix.rank(qterms, max(candidates, k))
	ids := make([]string, len(top))
	for i, r := range top {
		ids[i] = ix.ids[r.doc]
	}
	var lineDocs map[uint32]bool
	if p.line > 0 && p.file != "" {
		lineDocs = map[uint32]bool{}
		for _, ps := range ix.postings[lineTerm(p.file, p.line)] {
			lineDocs[ps.doc] = true
		}
	}
	byID := ix.byID
	v.idxMu.RUnlock()

	var cands []*cand
	seen := map[string]*cand{}
	err := v.view(func(tx *bolt.Tx) error {
		mb := tx.Bucket(bucketMeta)
		for i, id := range ids {
			c := &cand{doc: top[i].doc, bm25: top[i].score}
			if err := decodeMeta(mb.Get([]byte(id)), &c.meta); err != nil {
				return err
			}
			cands = append(cands, c)
			seen[id] = c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var scope stream
	now := q.Now
	if p.recency() {
		var near []Meta
		scope, now, near, err = v.scope(q, p)
		if err != nil {
			return nil, err
		}
		v.idxMu.RLock()
		for _, m := range near {
			if d, ok := byID[m.ID]; ok && seen[m.ID] == nil {
				c := &cand{doc: d, meta: m}
				cands = append(cands, c)
				seen[m.ID] = c
			}
		}
		v.idxMu.RUnlock()
	}
	scoreAll(cands, p, lineDocs, scope, now)
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].rel != cands[j].rel {
			return cands[i].rel > cands[j].rel
		}
		return cands[i].doc > cands[j].doc
	})
	hits := make([]Hit, 0, min(k, len(cands)))
	for _, c := range cands[:min(k, len(cands))] {
		if c.rel <= 0 {
			break
		}
		hits = append(hits, Hit{ID: c.meta.ID, Score: math.Round(c.rel*1000) / 1000, Meta: c.meta})
	}
	return hits, nil
}

// scoreAll sets every candidate's relevance.
func scoreAll(cands []*cand, p plan, lineDocs map[uint32]bool, scope stream, now int) {
	best := 0.0
	for _, c := range cands {
		best = math.Max(best, c.bm25)
	}
	cmdText := func(m Meta) string { return normCommand(strings.TrimSuffix(m.Command, "…")) }
	for _, c := range cands {
		rel := 0.0
		if best > 0 {
			rel = c.bm25 / best
		}
		if len(p.cmd) > 0 && c.meta.Command != "" {
			have := map[string]bool{}
			for _, t := range Terms(c.meta.Command) {
				have[t] = true
			}
			n := 0
			for _, t := range p.cmd {
				if have[t] {
					n++
				}
			}
			rel += cmdWeight * float64(n) / float64(len(p.cmd))
			if cmdText(c.meta) == p.cmdText {
				rel += cmdExact
			}
		}
		rel *= kindPrior(c.meta.Kind)
		if lineDocs[c.doc] {
			rel += lineWeight
		}
		c.rel = rel
	}
	if !p.recency() {
		return
	}
	if p.ago > 0 {
		target := now - p.ago
		for _, c := range cands {
			if d, ok := c.distance(scope, target); ok {
				c.rel *= 1 + agoWeight*math.Exp(-float64(d)/agoWidth)
			}
		}
		return
	}
	bestRel := 0.0
	for _, c := range cands {
		if _, ok := c.distance(scope, now); ok {
			bestRel = math.Max(bestRel, c.rel)
		}
	}
	var newest *cand
	newestAt := -1
	for _, c := range cands {
		d, ok := c.distance(scope, now)
		if ok && c.rel > 0 && c.rel >= lastMatch*bestRel && now-d > newestAt {
			newest, newestAt = c, now-d
		}
	}
	if newest != nil {
		newest.rel += lastWeight * bestRel
	}
}

// distance returns how many messages the candidate's nearest place in
// conversation s is from message at, and false when none is in s.
func (c *cand) distance(s stream, at int) (int, bool) {
	best, ok := 0, false
	for _, p := range c.meta.Places() {
		if p.Agent == s.agent && p.Session == s.session && p.MsgIndex >= 0 {
			if d := abs(p.MsgIndex - at); !ok || d < best {
				best, ok = d, true
			}
		}
	}
	return best, ok
}

// scope returns the conversation recency counts in, its length, and the
// blocks of it near the asked position: q's conversation if it names one,
// else that of the newest block.
func (v *Vault) scope(q Query, p plan) (stream, int, []Meta, error) {
	var all []Meta
	var newest Meta
	err := v.List(func(m Meta) error {
		if newest.ID == "" || m.Created.After(newest.Created) || m.Created.Equal(newest.Created) && m.MsgIndex > newest.MsgIndex {
			newest = m
		}
		all = append(all, m)
		return nil
	})
	if err != nil {
		return stream{}, 0, nil, err
	}
	s := stream{q.Agent, q.Session}
	if s.agent == "" && s.session == "" {
		s = stream{newest.Agent, newest.Session}
	}
	now := q.Now
	if now <= 0 {
		for _, m := range all {
			for _, pl := range m.Places() {
				if pl.Agent == s.agent && pl.Session == s.session {
					now = max(now, pl.MsgIndex+1)
				}
			}
		}
	}
	var near []Meta
	for _, m := range all {
		c := cand{meta: m}
		if d, ok := c.distance(s, now-p.ago); ok && (p.last || d <= nearMessages) {
			near = append(near, m)
		}
	}
	return s, now, near, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Search ranks blocks for query (see Query for what it understands) and
// returns at most k hits, best first. It never returns block bytes.
func (v *Vault) Search(query string, k int) ([]Hit, error) {
	return v.Find(Query{Text: strings.TrimSpace(query), K: k})
}
