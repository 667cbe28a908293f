package memory

import (
	"testing"

	"github.com/kwsdev/kws/memory/recallset"
)

// BenchmarkRecallSet reports recall@1/5/10 in percent on both splits of
// the generated long-conversation set, for plain BM25 and for the store
// with its default embedder, side by side (make bench).
func BenchmarkRecallSet(b *testing.B) {
	for _, split := range []recallset.Split{recallset.Tune, recallset.Measure} {
		set := recallset.Generate(split, recallset.Options{})
		for _, r := range []struct {
			name string
			ret  recallset.Retriever
		}{{"bm25", recallset.BM25}, {"default", recallset.Texts(RecallStore(Options{}))}} {
			b.Run(split.String()+"/"+r.name, func(b *testing.B) {
				var rep recallset.Report
				for b.Loop() {
					var err error
					if rep, err = recallset.Evaluate(r.name, set, r.ret); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(rep.All.At1, "R@1")
				b.ReportMetric(rep.All.At5, "R@5")
				b.ReportMetric(rep.All.At10, "R@10")
			})
		}
	}
}
