package memory

import (
	"strings"
	"sync"
	"time"

	"github.com/kwsdev/kws/internal/lexical"
)

// lexicon is the store's word indexes (BM25, internal/lexical) over the
// memories of every scope, whichever embedder made their vectors, so a
// memory waiting to be re-embedded is still found by its words. words
// indexes each memory's own text (Prose: stopwords dropped, stemmed);
// near indexes its context document (neighbours.go): those terms and the
// ones of the memories saved just before and after it; surf indexes its
// words as written (see surface). The first search builds all three from
// the store's memories; place and unplace keep them current from then on.
type lexicon struct {
	mu    sync.RWMutex
	words *lexical.Index
	near  *lexical.Index
	surf  *lexical.Index
	mems  map[string]lexMemory  // by lexicon key
	order map[string][]lexEntry // by scope: its memories, oldest first
	built bool
	fuse  *fusion // how Search fuses the rankings; nil: defaultFusion
}

// lexKey is a memory's document name in the lexicon: an id can be in two
// scopes at once while Update moves it.
func lexKey(scope, id string) string { return scope + "\x00" + id }

// scopeOfKey returns the scope of a lexicon key.
func scopeOfKey(key string) string { return key[:strings.IndexByte(key, 0)] }

// idOfKey returns the memory id of a lexicon key.
func idOfKey(key string) string { return key[strings.IndexByte(key, 0)+1:] }

// lexPut indexes the text of memory id of scope, created at created,
// replacing what it said before, and renews the context documents it
// is part of.
func (s *Store) lexPut(scope, id, text string, created time.Time) {
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		s.lex.put(scope, lexEntry{created, id}, lexical.Analyze(lexical.Prose, text), lexical.Analyze(surface, text))
	}
}

// lexRemove drops memory id of scope from the lexicon and renews its
// neighbours' context documents.
func (s *Store) lexRemove(scope, id string) {
	s.lex.mu.Lock()
	defer s.lex.mu.Unlock()
	if s.lex.built {
		s.lex.remove(scope, id)
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
	s.lex.words, s.lex.near, s.lex.surf = lexical.New(), lexical.New(), lexical.New()
	s.lex.mems, s.lex.order = map[string]lexMemory{}, map[string][]lexEntry{}
	for scope, docs := range s.docs {
		for id, d := range docs {
			key := lexKey(scope, id)
			m := lexMemory{createdOf(d.Metadata), lexical.Analyze(lexical.Prose, d.Content)}
			s.lex.mems[key] = m
			s.lex.words.Add(key, m.terms)
			s.lex.surf.Add(key, lexical.Analyze(surface, d.Content))
			s.lex.order[scope] = append(s.lex.order[scope], lexEntry{m.created, id})
		}
	}
	for scope := range s.lex.order {
		s.lex.sortScope(scope)
	}
	s.lex.built = true
}

// createdOf returns the creation time a document's metadata records.
func createdOf(md map[string]string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, md[keyCreated])
	return t
}

// lexRanks are the lexicon's rankings of memories for one query, best
// first, by lexicon key.
type lexRanks struct {
	words []lexical.Scored // by the memory's own words
	near  []lexical.Scored // by its context document's words
	surf  []lexical.Scored // by its words as written
}

// surface is the analyzer of the surface view: Unicode words as written
// (lowercased), stopwords kept and nothing stemmed. Prose's stopwords
// and stems lose what plain word matching finds ("is", "name" against
// "named"); fused with it, the surface view keeps those matches.
var surface = lexical.Analyzer{}

// lexRank ranks the memories of scopes (nil: every scope) for query by
// BM25 over their words, their context documents and their surface
// words, at most k of each; the caller holds s.mu, for reading at least.
func (s *Store) lexRank(query string, scopes []string, k int) lexRanks {
	s.lexBuild()
	var keep func(string) bool
	if scopes != nil {
		want := map[string]bool{}
		for _, sc := range scopes {
			want[sc] = true
		}
		keep = func(key string) bool { return want[scopeOfKey(key)] }
	}
	terms := lexical.Prose.Terms(query)
	s.lex.mu.RLock()
	defer s.lex.mu.RUnlock()
	return lexRanks{
		words: s.lex.words.Rank(terms, k, keep),
		near:  s.lex.near.Rank(terms, k, keep),
		surf:  s.lex.surf.Rank(surface.Terms(query), k, keep),
	}
}
