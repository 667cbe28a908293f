package memory

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/kwsdev/kws/internal/lexical"
	"github.com/philippgille/chromem-go"
)

// RecallHeader is the first line of a recall block. It tells the model
// that memories are hints and where the evidence is.
const RecallHeader = `<memory note="hints from earlier sessions, not evidence: tools and the vault are the evidence">`

// recallFooter closes a recall block.
const recallFooter = "</memory>"

// Recall ranking: how many memories are considered, and how much a
// project memory outranks a global one of the same relevance.
const (
	recallCandidates = 32
	projectBoost     = 0.05
)

// fusion is how hybrid search combines rankings (weighted reciprocal
// rank fusion): a memory's relevance is Σ weight/(k + rank) over the word
// ranking (BM25 over the memories' own words, stemmed, stopwords left
// out), the meaning ranking (the embedder's cosine similarity), the
// context ranking (BM25 over the memories' context documents, see
// lexicon) and the surface ranking (BM25 over the words as written,
// stopwords kept), each read depth deep.
type fusion struct {
	k                                float64
	words, meaning, context, surface float64
	depth                            int
}

// defaultFusion was chosen on recallset's Tune split with the hashing
// embedder (TestTuneFusion; recall@1/5/10, plain BM25 15.6/24.7/28.6%).
// Words alone reach 21.7/35.6/38.3% and the former default (k 1, words 3,
// meaning 1) 18.3/35.8/38.3%: a fact given as the answer to the other
// speaker's question shares no word with a later question about it, which
// uses the asking turn's words. The context ranking brings those in
// (alone 16.1/45.0/50.8%); weighted above the others it lifts recall@5 and
// @10 by 15 and 19 points, and the surface view wins back the first places
// the neighbours take: 18.6/51.1/57.2%. Its neighbours in the grid are
// within a point or two at @5 (context 4: 16.4/51.1/57.2%, surface 0:
// 15.8/51.4/56.9%, surface 2: 20.6/49.2/56.7%, meaning 1:
// 16.1/51.4/57.2%).
var defaultFusion = fusion{k: 0.5, words: 2, meaning: 2, context: 3, surface: 1, depth: 100}

// Search returns the k memories of scopes most relevant to query, best
// first; no scopes means every scope. Relevance fuses word matching
// (BM25) with the embedder's similarity; Hit.Score is the fused score
// (see Hit). Only vectors of the store's embedder are compared: a memory
// waiting to be re-embedded (see Reembedding) is found by its words alone.
func (s *Store) Search(ctx context.Context, query string, scopes []string, k int) ([]Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	found, err := s.hybrid(ctx, query, scopes, k)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(found))
	for i, f := range found {
		hits[i] = f.Hit
	}
	return hits, nil
}

// found is one hybrid search result.
type found struct {
	Hit
	cos   float64 // cosine similarity with the query
	words bool    // shares a term with the query
	key   string  // lexicon key
}

// hybrid ranks the memories of scopes for query by fusing their word and
// meaning ranks, and returns the best k.
func (s *Store) hybrid(ctx context.Context, query string, scopes []string, k int) ([]found, error) {
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmpty
	}
	if k <= 0 {
		return nil, nil
	}
	var only []string // nil: every scope
	if len(scopes) == 0 {
		scopes = s.scopes()
	} else {
		only = scopes
	}
	fu := defaultFusion
	if s.lex.fuse != nil {
		fu = *s.lex.fuse
	}
	depth := max(k, fu.depth)
	var byMeaning []*found
	vec, err := s.nearest(ctx, query, s.embedQuery, scopes, depth, func(scope string, d *chromem.Document, sim float32) {
		m := decode(d.ID, d.Content, d.Metadata)
		byMeaning = append(byMeaning, &found{Hit: Hit{Memory: m}, cos: float64(sim), key: lexKey(scope, d.ID)})
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(byMeaning, func(i, j int) bool {
		if byMeaning[i].cos != byMeaning[j].cos {
			return byMeaning[i].cos > byMeaning[j].cos
		}
		return byMeaning[i].ID < byMeaning[j].ID
	})
	byMeaning = byMeaning[:min(depth, len(byMeaning))]
	lex := s.lexRank(query, only, depth)

	// Equal scores share a rank (the first of theirs), so two memories
	// alike by words and meaning stay alike, and the project boost and
	// recency decide between them.
	all := make(map[string]*found, len(byMeaning)+len(lex.words)+len(lex.near))
	rank := 0
	for i, f := range byMeaning {
		if i > 0 && f.cos != byMeaning[i-1].cos {
			rank = i
		}
		f.Score = fu.meaning / (fu.k + float64(rank+1))
		all[f.key] = f
	}
	fuseLex := func(ranked []lexical.Scored, weight float64, own bool) {
		rank := 0
		for i, w := range ranked {
			if i > 0 && w.Score != ranked[i-1].Score {
				rank = i
			}
			f := all[w.ID]
			if f == nil {
				if f = s.lookup(w.ID, vec); f == nil {
					continue
				}
				all[w.ID] = f
			}
			f.words = f.words || own
			f.Score += weight / (fu.k + float64(rank+1))
		}
	}
	fuseLex(lex.words, fu.words, true)
	fuseLex(lex.near, fu.context, false)
	// Recall keeps a memory that shares a word with the query (found.words):
	// a word of the Prose ranking, not a stopword the surface view matched.
	fuseLex(lex.surf, fu.surface, false)
	top := (fu.words + fu.meaning + fu.context + fu.surface) / (fu.k + 1)
	out := make([]found, 0, len(all))
	for _, f := range all {
		f.Score /= top
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated) // the newer says what holds now
		}
		return out[i].key < out[j].key
	})
	return out[:min(k, len(out))], nil
}

// lookup reads the memory of lexicon key and its similarity to vec, a
// normalized query vector (0 when vec is nil or the memory's vector is
// another embedder's); nil when the memory is gone.
func (s *Store) lookup(key string, vec []float32) *found {
	doc := s.docs[scopeOfKey(key)][idOfKey(key)]
	if doc == nil {
		return nil
	}
	f := &found{Hit: Hit{Memory: decode(doc.ID, doc.Content, doc.Metadata)}, key: key}
	if v := s.vecs[scopeOfKey(key)]; vec != nil && v != nil {
		if i, ok := v.row[doc.ID]; ok { // the store's embedder made it
			f.cos = float64(dot32(vec, v.vec(i))) // normalized, as the query
		}
	}
	return f
}

// search returns the k memories of scopes nearest to query by the
// embedder alone, best first; Hit.Score is the cosine similarity. Dedupe
// and update decisions compare it with similarity thresholds.
func (s *Store) search(ctx context.Context, query string, scopes []string, k int) ([]Hit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmpty
	}
	if k <= 0 {
		return nil, nil
	}
	if len(scopes) == 0 {
		scopes = s.scopes()
	}
	var hits []Hit
	_, err := s.nearest(ctx, query, s.embed, scopes, k, func(_ string, d *chromem.Document, sim float32) {
		hits = append(hits, Hit{Memory: decode(d.ID, d.Content, d.Metadata), Score: float64(sim)})
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// nearest calls each with the n memories of every scope in scopes nearest
// to query, a scope's nearest first, and returns the query's vector,
// normalized: embed makes it once, for the first scope that holds vectors
// (none: nil, and embed is not called). Only the store's embedder's
// vectors are in vecs (see place), so a query is never compared with
// another embedder's.
func (s *Store) nearest(ctx context.Context, query string, embed func(context.Context, string) ([]float32, error), scopes []string, n int, each func(scope string, d *chromem.Document, sim float32)) ([]float32, error) {
	var vec []float32
	for _, scope := range scopes {
		v := s.vecs[scope]
		if v == nil {
			continue
		}
		if vec == nil {
			raw, err := embed(ctx, query)
			if err != nil {
				return nil, err
			}
			vec = normalized(raw)
		}
		for _, r := range v.nearest(vec, n) {
			each(scope, s.docs[scope][r.id], r.sim)
		}
	}
	return vec, nil
}

// List returns every memory of scope, most recently updated first.
func (s *Store) List(ctx context.Context, scope string) ([]Memory, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.list(ctx, scope)
}

func (s *Store) list(_ context.Context, scope string) ([]Memory, error) {
	out := make([]Memory, 0, len(s.docs[scope]))
	for _, d := range s.docs[scope] {
		out = append(out, decode(d.ID, d.Content, d.Metadata))
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Recall returns the memories of scopes relevant to query as a <memory>
// hint block for the prompt, and the memories it holds, ranked as Search
// ranks them. A memory that shares no word with the query and whose
// similarity is below Options.RecallMinScore is left out; a project
// memory outranks a global one of equal relevance. The block's first line is RecallHeader; each
// memory is a line "- [kind] text (id, source)". Lines are added best
// first until the next would make count(block) exceed budgetTokens. count
// nil means a chars/4 estimate. With nothing relevant, or no room for one
// memory, the block is empty.
func (s *Store) Recall(ctx context.Context, query string, scopes []string, budgetTokens int, count func(string) int) (string, []Memory, error) {
	if strings.TrimSpace(query) == "" || budgetTokens <= 0 {
		return "", nil, nil
	}
	if count == nil {
		count = func(s string) int { return (len(s) + 3) / 4 }
	}
	s.mu.RLock()
	hits, err := s.hybrid(ctx, query, scopes, recallCandidates)
	s.mu.RUnlock()
	if err != nil {
		return "", nil, err
	}
	rank := func(h found) float64 {
		if IsProject(h.Scope) {
			return h.Score + projectBoost
		}
		return h.Score
	}
	kept := hits[:0]
	for _, h := range hits {
		if h.words || h.cos >= s.opts.RecallMinScore {
			kept = append(kept, h)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return rank(kept[i]) > rank(kept[j]) })

	var b strings.Builder
	b.WriteString(RecallHeader + "\n")
	var used []Memory
	for _, h := range kept {
		line := fmt.Sprintf("- [%s] %s (%s, %s)\n", h.Kind, oneLine(h.Text), h.ID, h.Provenance.Source)
		if count(b.String()+line+recallFooter) > budgetTokens {
			break
		}
		b.WriteString(line)
		used = append(used, h.Memory)
	}
	if len(used) == 0 {
		return "", nil, nil
	}
	b.WriteString(recallFooter)
	return b.String(), used, nil
}

// memoryTagRE matches a <memory> or </memory> tag inside a memory's text.
var memoryTagRE = regexp.MustCompile(`(?i)<(/?memory)`)

// oneLine collapses text's whitespace to single spaces and defuses memory
// tags, so a memory cannot end the block early.
func oneLine(text string) string {
	return memoryTagRE.ReplaceAllString(strings.Join(strings.Fields(text), " "), "‹$1")
}
