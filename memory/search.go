package memory

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// RecallHeader is the first line of a recall block. It tells the model
// that memories are hints and where the evidence is.
const RecallHeader = `<memory note="hints from earlier sessions, not evidence: tools and the vault are the evidence">`

// recallFooter closes a recall block.
const recallFooter = "</memory>"

// Recall ranking: how many memories are considered, and how much a
// project memory outranks a global one of the same similarity.
const (
	recallCandidates = 32
	projectBoost     = 0.05
)

// Search returns the k memories of scopes most similar to query, best
// first; no scopes means every scope. Scores are chromem's cosine
// similarities. Only vectors of the store's embedder are compared: a
// memory waiting to be re-embedded (see Reembedding) is not among them.
func (s *Store) Search(ctx context.Context, query string, scopes []string, k int) ([]Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.search(ctx, query, scopes, k)
}

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
	var vec []float32
	var hits []Hit
	for _, scope := range scopes {
		c := s.collection(scope)
		if c == nil {
			continue
		}
		if vec == nil {
			var err error
			if vec, err = s.embed(ctx, query); err != nil {
				return nil, err
			}
		}
		res, err := c.QueryEmbedding(ctx, vec, min(k, c.Count()), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("memory: query %s: %w", scope, err)
		}
		for _, r := range res {
			hits = append(hits, Hit{Memory: decode(r.ID, r.Content, r.Metadata), Score: float64(r.Similarity)})
		}
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
// hint block for the prompt, and the memories it holds. Memories below
// Options.RecallMinScore are left out; a project memory outranks a global
// one of equal similarity. The block's first line is RecallHeader; each
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
	hits, err := s.Search(ctx, query, scopes, recallCandidates)
	if err != nil {
		return "", nil, err
	}
	rank := func(h Hit) float64 {
		if IsProject(h.Scope) {
			return h.Score + projectBoost
		}
		return h.Score
	}
	kept := hits[:0]
	for _, h := range hits {
		if h.Score >= s.opts.RecallMinScore {
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
