package memory

import (
	"context"
	"strings"
	"sync"

	"github.com/kwsdev/kws/internal/lexical"
)

// lexicon is the store's word index (BM25, internal/lexical) over the
// text of the memories of every scope. It is built from the loaded
// memories by the first search, and kept current by put and delete from
// then on: a change before the build is in the memories the build reads.
type lexicon struct {
	mu    sync.RWMutex
	ix    *lexical.Index
	built bool
	fuse  *fusion // how Search fuses the two rankings; nil: defaultFusion
}

// lexKey is a memory's document name in the lexicon: an id can be in two
// scopes at once while Update moves it.
func lexKey(scope, id string) string { return scope + "\x00" + id }

// scopeOfKey returns the scope of a lexicon key.
func scopeOfKey(key string) string { return key[:strings.IndexByte(key, 0)] }

// idOfKey returns the memory id of a lexicon key.
func idOfKey(key string) string { return key[strings.IndexByte(key, 0)+1:] }

// lexPut indexes m's text, replacing what it said before.
func (s *Store) lexPut(m Memory) {
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		s.lex.ix.Add(lexKey(m.Scope, m.ID), lexical.Analyze(lexical.Prose, m.Text))
	}
}

// lexRemove drops m from the lexicon.
func (s *Store) lexRemove(m Memory) {
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		s.lex.ix.Remove(lexKey(m.Scope, m.ID))
	}
}

// lexBuild builds the lexicon on first use from every memory in the
// store. probe is any vector of the embedder's size (the query's):
// chromem-go lists a collection only as an exhaustive query.
func (s *Store) lexBuild(ctx context.Context, probe []float32) error {
	s.lex.mu.RLock()
	built := s.lex.built
	s.lex.mu.RUnlock()
	if built {
		return nil
	}
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		return nil
	}
	ix := lexical.New()
	for name, c := range s.db.ListCollections() {
		n := c.Count()
		if n == 0 {
			continue
		}
		res, err := c.QueryEmbedding(ctx, probe, n, nil, nil)
		if err != nil {
			return queryError(name, err)
		}
		for _, r := range res {
			ix.Add(lexKey(name, r.ID), lexical.Analyze(lexical.Prose, r.Content))
		}
	}
	s.lex.ix, s.lex.built = ix, true
	return nil
}

// lexRank ranks the memories of scopes (nil: every scope) for query by
// BM25, best first, at most k of them, by lexicon key.
func (s *Store) lexRank(ctx context.Context, probe []float32, query string, scopes []string, k int) ([]lexical.Scored, error) {
	if err := s.lexBuild(ctx, probe); err != nil {
		return nil, err
	}
	var keep func(string) bool
	if scopes != nil {
		want := map[string]bool{}
		for _, sc := range scopes {
			want[sc] = true
		}
		keep = func(key string) bool { return want[scopeOfKey(key)] }
	}
	s.lex.mu.RLock()
	defer s.lex.mu.RUnlock()
	return s.lex.ix.Rank(lexical.Prose.Terms(query), k, keep), nil
}
