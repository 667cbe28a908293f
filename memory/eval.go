package memory

import (
	"context"
	"os"

	"github.com/kwsdev/kws/memory/recallset"
)

// RecallRetriever returns a recallset.Retriever that fills a new store with every turn of a conversation as
// `kws memory add` would ("SPEAKER: TEXT", promoted as a manual note, so
// near-duplicates merge) in a temporary directory, and searches it as
// `kws memory search` does. kws memory eval and the memory benchmarks
// measure the store with it.
func RecallRetriever(opts Options) recallset.Retriever {
	return func(c recallset.Conversation) (recallset.SearchFunc, func(), error) {
		dir, err := os.MkdirTemp("", "kws-recallset-")
		if err != nil {
			return nil, nil, err
		}
		release := func() { os.RemoveAll(dir) }
		s, err := Open(dir, opts)
		if err != nil {
			release()
			return nil, nil, err
		}
		ctx := context.Background()
		turns := map[string][]int{}
		for _, t := range c.Turns {
			_, m, err := s.Promote(ctx, Candidate{Text: t.Line(), Confidence: 1}, GlobalScope, Provenance{Source: SourceManual})
			if err != nil {
				release()
				return nil, nil, err
			}
			turns[m.ID] = append(turns[m.ID], t.ID)
		}
		search := func(q string, k int) ([]int, error) {
			hits, err := s.Search(ctx, q, nil, k)
			if err != nil {
				return nil, err
			}
			var ids []int
			for _, h := range hits {
				ids = append(ids, turns[h.ID]...)
			}
			return ids[:min(k, len(ids))], nil
		}
		return search, release, nil
	}
}
