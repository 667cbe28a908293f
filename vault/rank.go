package vault

import (
	"errors"
	"math"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Ranking weights. A block's relevance is its BM25 score (scaled to the
// best one's) plus how well its command matches a quoted command, times
// its kind's prior, plus whether it shows the asked line of the asked
// file; recency (recency.go) then favours blocks at the asked position.
const (
	candidates = 200 // BM25 candidates re-ranked
	cmdWeight  = 1.5 // a quoted command's terms all in the block's command
	cmdExact   = 0.5 // and the command is exactly the quoted one
	lineWeight = 1.5 // the block shows the asked line of the asked file
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

// cand is one block being ranked.
type cand struct {
	order uint64 // when the block was indexed: newer is higher
	bm25  float64
	meta  Meta
	rel   float64
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
	top := ix.Rank(qterms, max(candidates, k), nil)
	var lineDocs map[string]bool
	if p.line > 0 && p.file != "" {
		lineDocs = map[string]bool{}
		for _, id := range ix.Holding(lineTerm(p.file, p.line)) {
			lineDocs[id] = true
		}
	}
	var cmdDocs []string
	if p.last && len(p.cmd) > 0 {
		rare, rareN := p.cmd[0], ix.DocFreq(p.cmd[0])
		for _, t := range p.cmd[1:] {
			if n := ix.DocFreq(t); n > 0 && n < rareN || rareN == 0 {
				rare, rareN = t, n
			}
		}
		cmdDocs = ix.Holding(rare)
	}
	v.idxMu.RUnlock()

	var cands []*cand
	seen := map[string]*cand{}
	err := v.view(func(tx *bolt.Tx) error {
		mb := tx.Bucket(bucketMeta)
		for _, r := range top {
			c := &cand{order: r.Order, bm25: r.Score}
			if err := decodeMeta(mb.Get([]byte(r.ID)), &c.meta); err != nil {
				return err
			}
			cands = append(cands, c)
			seen[r.ID] = c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	scoreAll(cands, p, lineDocs)
	if p.recency() {
		sc, near, err := v.recencyScope(q, p, cmdDocs)
		if err != nil {
			return nil, err
		}
		more, err := v.candidates(near, seen, p, lineDocs)
		if err != nil {
			return nil, err
		}
		cands = append(cands, more...)
		sc.apply(cands, p)
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].rel != cands[j].rel {
			return cands[i].rel > cands[j].rel
		}
		return cands[i].order > cands[j].order
	})
	hits := make([]Hit, 0, min(k, len(cands)))
	for _, c := range cands[:min(k, len(cands))] {
		if c.rel <= 0 {
			break
		}
		hits = append(hits, Hit{ID: c.meta.ID, Score: math.Round(c.rel*1000) / 1000, Meta: c.meta})
	}
	return hits, v.markDamaged(hits)
}

// DamagedSummary is the summary search gives a damaged block in place of
// its own, which was made from bytes that can no longer be trusted.
const DamagedSummary = "DAMAGED: its stored bytes no longer match its id; they are not served"

// markDamaged checks each hit's block against its id and marks the ones
// that fail (Hit.Damaged), dropping what their metadata quotes of them.
func (v *Vault) markDamaged(hits []Hit) error {
	return v.view(func(tx *bolt.Tx) error {
		for i := range hits {
			if _, err := verifiedBlock(tx, hits[i].ID); errors.Is(err, ErrCorrupt) {
				m := &hits[i].Meta
				m.Summary, m.Topics, m.Files, m.Command = DamagedSummary, nil, nil, ""
				hits[i].Damaged = true
			}
		}
		return nil
	})
}

// candidates reads the metadata of the blocks ids that are not yet
// candidates (seen) and scores them as candidates.
func (v *Vault) candidates(ids []string, seen map[string]*cand, p plan, lineDocs map[string]bool) ([]*cand, error) {
	var out []*cand
	err := v.view(func(tx *bolt.Tx) error {
		mb := tx.Bucket(bucketMeta)
		v.idxMu.RLock()
		defer v.idxMu.RUnlock()
		for _, id := range ids {
			order, ok := v.idx.Order(id)
			if !ok || seen[id] != nil {
				continue
			}
			c := &cand{order: order}
			if err := decodeMeta(mb.Get([]byte(id)), &c.meta); err != nil {
				return err
			}
			out = append(out, c)
			seen[id] = c
		}
		return nil
	})
	scoreAll(out, p, lineDocs)
	return out, err
}

// scoreAll sets the candidates' relevance before recency: BM25 scaled to
// the best candidate's, command match, kind prior, line match.
func scoreAll(cands []*cand, p plan, lineDocs map[string]bool) {
	best := 0.0
	for _, c := range cands {
		best = math.Max(best, c.bm25)
	}
	for _, c := range cands {
		rel := 0.0
		if best > 0 {
			rel = c.bm25 / best
		}
		rel += cmdMatch(p, c.meta.Command)
		rel *= kindPrior(c.meta.Kind)
		if lineDocs[c.meta.ID] {
			rel += lineWeight
		}
		c.rel = rel
	}
}

// cmdMatch scores how well a block's command matches the query's quoted
// command: the share of its terms the block's command holds, and a bonus
// when the two are the same.
func cmdMatch(p plan, command string) float64 {
	if len(p.cmd) == 0 || command == "" {
		return 0
	}
	have := map[string]bool{}
	for _, t := range Terms(command) {
		have[t] = true
	}
	n := 0
	for _, t := range p.cmd {
		if have[t] {
			n++
		}
	}
	score := cmdWeight * float64(n) / float64(len(p.cmd))
	if normCommand(strings.TrimSuffix(command, "…")) == p.cmdText {
		score += cmdExact
	}
	return score
}

// Search ranks blocks for query (see Query for what it understands) and
// returns at most k hits, best first. It never returns block bytes.
func (v *Vault) Search(query string, k int) ([]Hit, error) {
	return v.Find(Query{Text: strings.TrimSpace(query), K: k})
}
