package replay

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
)

// SearchScore counts the questions whose answer block a ranker returned
// first (Top1) and among its first three (Top3).
type SearchScore struct {
	Questions int `json:"questions"`
	Top1      int `json:"top1"`
	Top3      int `json:"top3"`
}

// Pct returns the share of n among the questions, in percent.
func (s SearchScore) Pct(n int) float64 {
	if s.Questions == 0 {
		return 0
	}
	return math.Round(1000*float64(n)/float64(s.Questions)) / 10
}

func (s *SearchScore) add(ids []string, answer string) {
	s.Questions++
	for i, id := range ids {
		if id == answer {
			if i == 0 {
				s.Top1++
			}
			if i < 3 {
				s.Top3++
			}
			return
		}
	}
}

// SearchEval is one question set's figures: kws's search told who asks
// (as an agent's ctx_search is), kws's search given the question's text
// alone (as kws vault search and the vault pane are), and a plain BM25
// ranking of the same blocks.
type SearchEval struct {
	KWS, Text, BM25 SearchScore
	Questions       []Question
	// Missed lists the questions kws's search did not answer in its top 3.
	Missed []Question
}

// EvalSearch replays every conversation into v, each as its own diet
// session as the agents of a swarm share one vault (logging each call's
// stats event, as kws diet replay and the agents do), asks each one's
// questions at its end, and scores kws's search (told who asks and how
// long its conversation is, as an agent's ctx_search is) against BM25.
func EvalSearch(convs []Conversation, p diet.Params, v *vault.Vault, counter *tokens.Counter) (SearchEval, error) {
	var ev SearchEval
	for _, c := range convs {
		o, err := Run(c, p, v, counter, nil)
		if err != nil {
			return ev, fmt.Errorf("replay %s: %w", c.Name, err)
		}
		if err := v.AppendStats(o.Events...); err != nil {
			return ev, err
		}
		ev.Questions = append(ev.Questions, Questions(c, p.MinBlockChars)...)
	}
	base, err := newBM25(v)
	if err != nil {
		return ev, err
	}
	for _, q := range ev.Questions {
		hits, err := v.Find(vault.Query{Text: q.Text, K: 3, Agent: "replay", Session: q.Conv, Now: q.Now})
		if err != nil {
			return ev, err
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		before := ev.KWS.Top3
		ev.KWS.add(ids, q.Answer)
		if ev.KWS.Top3 == before {
			ev.Missed = append(ev.Missed, q)
		}
		if hits, err = v.Search(q.Text, 3); err != nil {
			return ev, err
		}
		ids = ids[:0]
		for _, h := range hits {
			ids = append(ids, h.ID)
		}
		ev.Text.add(ids, q.Answer)
		ev.BM25.add(base.rank(q.Text, 3), q.Answer)
	}
	return ev, nil
}

// bm25 is the baseline: Okapi BM25 (k1 1.2, b 0.75) over the blocks'
// bytes alone, with the vault's tokenizer and nothing else.
type bm25 struct {
	ids      []string
	lens     []float64
	avg      float64
	postings map[string]map[int]float64
}

func newBM25(v *vault.Vault) (*bm25, error) {
	b := &bm25{postings: map[string]map[int]float64{}}
	var metas []vault.Meta
	if err := v.List(func(m vault.Meta) error { metas = append(metas, m); return nil }); err != nil {
		return nil, err
	}
	total := 0.0
	for _, m := range metas {
		data, err := v.Get(m.ID)
		if err != nil {
			return nil, err
		}
		doc := len(b.ids)
		b.ids = append(b.ids, m.ID)
		n := 0.0
		for _, t := range termList(string(data)) {
			if b.postings[t] == nil {
				b.postings[t] = map[int]float64{}
			}
			b.postings[t][doc]++
			n++
		}
		b.lens = append(b.lens, n)
		total += n
	}
	if len(b.ids) > 0 {
		b.avg = total / float64(len(b.ids))
	}
	return b, nil
}

// reWord is the baseline's tokenizer: runs of letters, digits and
// underscores, lowercased, of at least two bytes.
var reWord = regexp.MustCompile(`[A-Za-z0-9_]{2,}`)

// termList returns every word of text, in order, repeats included.
func termList(text string) []string {
	words := reWord.FindAllString(text, -1)
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return words
}

func (b *bm25) rank(query string, k int) []string {
	const k1, bb = 1.2, 0.75
	scores := map[int]float64{}
	n := float64(len(b.ids))
	seen := map[string]bool{}
	for _, t := range termList(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := b.postings[t]
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for doc, tf := range ps {
			scores[doc] += idf * tf * (k1 + 1) / (tf + k1*(1-bb+bb*b.lens[doc]/b.avg))
		}
	}
	docs := make([]int, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if scores[docs[i]] != scores[docs[j]] {
			return scores[docs[i]] > scores[docs[j]]
		}
		return docs[i] < docs[j]
	})
	out := make([]string, 0, k)
	for _, d := range docs[:min(k, len(docs))] {
		out = append(out, b.ids[d])
	}
	return out
}
