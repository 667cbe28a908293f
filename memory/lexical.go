package memory

import (
	"strings"
	"sync"

	"github.com/kwsdev/kws/internal/lexical"
)

// lexicon is the store's word index (BM25, internal/lexical) over the
// text of the memories of every scope, whichever embedder made their
// vectors, so a memory waiting to be re-embedded is still found by its
// words. The first search builds it from the store's memories; place and
// unplace keep it current from then on.
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

// lexPut indexes the text of memory id of scope, replacing what it said
// before.
func (s *Store) lexPut(scope, id, text string) {
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		s.lex.ix.Add(lexKey(scope, id), lexical.Analyze(lexical.Prose, text))
	}
}

// lexRemove drops memory id of scope from the lexicon.
func (s *Store) lexRemove(scope, id string) {
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		s.lex.ix.Remove(lexKey(scope, id))
	}
}

// lexBuild builds the lexicon on first use from every memory in the
// store; the caller holds s.mu, for reading at least.
func (s *Store) lexBuild() {
	s.lex.mu.RLock()
	built := s.lex.built
	s.lex.mu.RUnlock()
	if built {
		return
	}
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		return
	}
	ix := lexical.New()
	for scope, docs := range s.docs {
		for id, d := range docs {
			ix.Add(lexKey(scope, id), lexical.Analyze(lexical.Prose, d.Content))
		}
	}
	s.lex.ix, s.lex.built = ix, true
}

// lexRank ranks the memories of scopes (nil: every scope) for query by
// BM25, best first, at most k of them, by lexicon key; the caller holds
// s.mu, for reading at least.
func (s *Store) lexRank(query string, scopes []string, k int) []lexical.Scored {
	s.lexBuild()
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
	return s.lex.ix.Rank(lexical.Prose.Terms(query), k, keep)
}
