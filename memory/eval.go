package memory

import (
	"context"
	"os"
)

// RecallStore is the retriever the recall benchmark (package recallset,
// through recallset.Texts) measures the store with: it fills a new store
// in a temporary directory with lines as `kws memory add` would (each
// promoted as a manual note, so near-duplicates merge) and returns its
// search as `kws memory search` does, in every scope, each hit as its
// text; release closes the store and removes the directory. kws memory
// eval and the memory benchmarks use it.
func RecallStore(opts Options) func(lines []string) (search func(q string, k int) ([]string, error), release func(), err error) {
	return func(lines []string) (func(string, int) ([]string, error), func(), error) {
		s, release, err := openFilled(lines, opts)
		if err != nil {
			return nil, nil, err
		}
		return s.searchTexts, release, nil
	}
}

// openFilled opens a store in a temporary directory holding lines;
// release closes it and removes the directory.
func openFilled(lines []string, opts Options) (*Store, func(), error) {
	dir, err := os.MkdirTemp("", "kws-recallset-")
	if err != nil {
		return nil, nil, err
	}
	s, err := Open(dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	release := func() {
		s.Close()
		os.RemoveAll(dir)
	}
	ctx := context.Background()
	for _, line := range lines {
		if _, _, err := s.Promote(ctx, Candidate{Text: line, Confidence: 1}, GlobalScope, Provenance{Source: SourceManual}); err != nil {
			release()
			return nil, nil, err
		}
	}
	return s, release, nil
}

// searchTexts searches every scope and returns the hits' texts.
func (s *Store) searchTexts(q string, k int) ([]string, error) {
	hits, err := s.Search(context.Background(), q, nil, k)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = h.Text
	}
	return texts, nil
}
