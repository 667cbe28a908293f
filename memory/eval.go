package memory

import (
	"context"
	"os"
	"strings"

	"github.com/kwsdev/kws/memory/recallset"
)

// RecallRetriever returns a recallset.Retriever that fills a new store
// with every turn of a conversation as `kws memory add` would ("SPEAKER:
// TEXT", promoted as a manual note, so near-duplicates merge) in a
// temporary directory, and searches it as `kws memory search` does. A
// result is the text of a memory, so it stands for the turns that say
// exactly that: a turn merged into a memory with other words is not found
// through it. kws memory eval and the memory benchmarks measure the store
// with it.
func RecallRetriever(opts Options) recallset.Retriever {
	return func(c recallset.Conversation) (recallset.SearchFunc, func(), error) {
		s, turns, release, err := recallStore(c, opts)
		if err != nil {
			return nil, nil, err
		}
		return recallSearch(s, turns), release, nil
	}
}

// recallStore opens a store in a temporary directory, adds c's turns to
// it and returns the turns of each text, as the store normalizes it;
// release closes the store and removes the directory.
func recallStore(c recallset.Conversation, opts Options) (*Store, map[string][]int, func(), error) {
	dir, err := os.MkdirTemp("", "kws-recallset-")
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := Open(dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, nil, err
	}
	release := func() {
		s.Close()
		os.RemoveAll(dir)
	}
	ctx := context.Background()
	turns := map[string][]int{}
	for _, t := range c.Turns {
		if _, _, err := s.Promote(ctx, Candidate{Text: t.Line(), Confidence: 1}, GlobalScope, Provenance{Source: SourceManual}); err != nil {
			release()
			return nil, nil, nil, err
		}
		text := strings.Join(strings.Fields(t.Line()), " ")
		turns[text] = append(turns[text], t.ID)
	}
	return s, turns, release, nil
}

// recallSearch searches s in every scope; a result is the turns that say
// a hit's text.
func recallSearch(s *Store, turns map[string][]int) recallset.SearchFunc {
	return func(q string, k int) ([][]int, error) {
		hits, err := s.Search(context.Background(), q, nil, k)
		if err != nil {
			return nil, err
		}
		results := make([][]int, len(hits))
		for i, h := range hits {
			results[i] = turns[h.Text]
		}
		return results, nil
	}
}
