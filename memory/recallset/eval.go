package recallset

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// SearchFunc returns at most k results that best answer query, best
// first, each as the IDs of the conversation's turns it holds: one turn,
// or several when a store merged repeated turns into one memory.
type SearchFunc func(query string, k int) ([][]int, error)

// Retriever indexes one conversation's turns (each as Turn.Line) and
// returns its search, and a release for what indexing opened.
type Retriever func(c Conversation) (SearchFunc, func(), error)

// Recall is recall at 1, 5 and 10, in percent, over N questions.
type Recall struct {
	N                 int     `json:"n"`
	At1               float64 `json:"r1"`
	At5               float64 `json:"r5"`
	At10              float64 `json:"r10"`
	hit1, hit5, hit10 int
}

func (r *Recall) add(rank int) {
	r.N++
	if rank >= 0 && rank < 1 {
		r.hit1++
	}
	if rank >= 0 && rank < 5 {
		r.hit5++
	}
	if rank >= 0 && rank < 10 {
		r.hit10++
	}
	pct := func(h int) float64 { return math.Round(1000*float64(h)/float64(r.N)) / 10 }
	r.At1, r.At5, r.At10 = pct(r.hit1), pct(r.hit5), pct(r.hit10)
}

// Report is a retriever's recall on a set, in all and per category.
type Report struct {
	Name       string             `json:"name"`
	Split      Split              `json:"split"`
	All        Recall             `json:"all"`
	ByCategory map[string]*Recall `json:"by_category"`
}

// Categories are the question categories in report order.
var Categories = []string{"single", "temporal", "multi", "update"}

// Evaluate asks every question of set through the retriever named name;
// a question is a hit at k when one of the first k results holds one of
// its evidence turns.
func Evaluate(name string, set Set, retrieve Retriever) (Report, error) {
	rep := Report{Name: name, Split: set.Split, ByCategory: map[string]*Recall{}}
	for _, c := range Categories {
		rep.ByCategory[c] = &Recall{}
	}
	for _, conv := range set.Conversations {
		search, release, err := retrieve(conv)
		if err != nil {
			return rep, fmt.Errorf("%s: %s: %w", name, conv.Name, err)
		}
		for _, q := range conv.Questions {
			results, err := search(q.Text, 10)
			if err != nil {
				release()
				return rep, fmt.Errorf("%s: %s: %q: %w", name, conv.Name, q.Text, err)
			}
			rank := slices.IndexFunc(results, func(turns []int) bool {
				return slices.ContainsFunc(turns, func(id int) bool { return slices.Contains(q.Evidence, id) })
			})
			rep.All.add(rank)
			rep.ByCategory[q.Category].add(rank)
		}
		release()
	}
	return rep, nil
}

// WriteTable prints reports as a table: one row per report and category.
func WriteTable(w io.Writer, reps ...Report) {
	fmt.Fprintf(w, "%-10s %-8s %-9s %5s %6s %6s %6s\n", "RETRIEVER", "SPLIT", "CATEGORY", "N", "R@1", "R@5", "R@10")
	for _, rep := range reps {
		row := func(cat string, r Recall) {
			fmt.Fprintf(w, "%-10s %-8s %-9s %5d %6.1f %6.1f %6.1f\n", rep.Name, rep.Split, cat, r.N, r.At1, r.At5, r.At10)
		}
		row("all", rep.All)
		for _, c := range Categories {
			row(c, *rep.ByCategory[c])
		}
	}
}

// BM25 is the baseline: plain Okapi BM25 (k1 1.2, b 0.75) over lowercase
// letter-and-digit words, with no stemming, stopwords or identifiers: word
// matching as anyone would write it in forty lines.
func BM25(c Conversation) (SearchFunc, func(), error) {
	docs := make([]map[string]int, len(c.Turns))
	df := map[string]int{}
	total := 0
	lens := make([]int, len(c.Turns))
	for i, t := range c.Turns {
		docs[i] = map[string]int{}
		for _, w := range words(t.Line()) {
			if docs[i][w] == 0 {
				df[w]++
			}
			docs[i][w]++
			lens[i]++
		}
		total += lens[i]
	}
	avg := float64(total) / float64(max(1, len(docs)))
	n := float64(len(docs))
	search := func(query string, k int) ([][]int, error) {
		scores := make([]float64, len(docs))
		for _, w := range words(query) {
			if df[w] == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			for i, d := range docs {
				if tf := float64(d[w]); tf > 0 {
					scores[i] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(lens[i])/avg))
				}
			}
		}
		order := make([]int, 0, len(docs))
		for i, s := range scores {
			if s > 0 {
				order = append(order, i)
			}
		}
		sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
		results := make([][]int, 0, k)
		for _, i := range order[:min(k, len(order))] {
			results = append(results, []int{c.Turns[i].ID})
		}
		return results, nil
	}
	return search, func() {}, nil
}

// words splits text into lowercase runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Texts adapts a store that answers with texts to a Retriever: open
// indexes the conversation's turns (each as Turn.Line) and returns a
// search whose hits are texts. A hit stands for the turns whose line, its
// whitespace collapsed to single spaces (as kws's memory keeps a text),
// is that text: a turn merged into a text with other words is not found
// through it.
func Texts(open func(lines []string) (search func(q string, k int) ([]string, error), release func(), err error)) Retriever {
	return func(c Conversation) (SearchFunc, func(), error) {
		lines := make([]string, len(c.Turns))
		turns := map[string][]int{}
		for i, t := range c.Turns {
			lines[i] = t.Line()
			text := strings.Join(strings.Fields(lines[i]), " ")
			turns[text] = append(turns[text], t.ID)
		}
		search, release, err := open(lines)
		if err != nil {
			return nil, nil, err
		}
		return func(q string, k int) ([][]int, error) {
			texts, err := search(q, k)
			if err != nil {
				return nil, err
			}
			results := make([][]int, len(texts))
			for i, text := range texts {
				results[i] = turns[text]
			}
			return results, nil
		}, release, nil
	}
}
