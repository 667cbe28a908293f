package recallset

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestGenerateIsDeterministicAndWellFormed(t *testing.T) {
	for _, split := range []Split{Tune, Measure} {
		a, b := Generate(split, Options{}), Generate(split, Options{})
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: two generations differ", split)
		}
		if len(a.Conversations) != 10 {
			t.Fatalf("%s: %d conversations", split, len(a.Conversations))
		}
		for _, c := range a.Conversations {
			if len(c.Turns) != 600 {
				t.Errorf("%s: %d turns", c.Name, len(c.Turns))
			}
			if c.Speakers[0] == c.Speakers[1] {
				t.Errorf("%s: one speaker twice", c.Name)
			}
			for i, turn := range c.Turns {
				if turn.ID != i || strings.Contains(turn.Text, "{") {
					t.Errorf("%s: turn %d: %+v", c.Name, i, turn)
				}
			}
			if len(c.Questions) != 2*len(splitOf(factTemplates, split)) {
				t.Errorf("%s: %d questions", c.Name, len(c.Questions))
			}
			for _, q := range c.Questions {
				want := 1
				if q.Category == "multi" {
					want = 2
				}
				if len(q.Evidence) != want || strings.Contains(q.Text, "{") {
					t.Errorf("%s: %+v", c.Name, q)
				}
				for _, id := range q.Evidence {
					if s := c.Turns[id].Speaker; !strings.Contains(q.Text, s) {
						t.Errorf("%s: %q asks about someone other than %s, who said turn %d", c.Name, q.Text, s, id)
					}
				}
			}
		}
	}
}

// TestSplitsShareNoPhrasing: Measure's facts and small talk use templates
// Tune never sees.
func TestSplitsShareNoPhrasing(t *testing.T) {
	lines := func(s Set) map[string]bool {
		out := map[string]bool{}
		for _, c := range s.Conversations {
			for _, q := range c.Questions {
				for _, id := range q.Evidence {
					out[c.Turns[id].Text] = true
				}
			}
		}
		return out
	}
	tune, measure := lines(Generate(Tune, Options{})), lines(Generate(Measure, Options{}))
	for l := range measure {
		if tune[l] {
			t.Errorf("evidence %q is in both splits", l)
		}
	}
	if ft := splitOf(factTemplates, Measure); slices.ContainsFunc(splitOf(factTemplates, Tune), func(a factTemplate) bool {
		return slices.ContainsFunc(ft, func(b factTemplate) bool { return a.says[0] == b.says[0] || a.ask != "" && a.ask == b.ask })
	}) {
		t.Error("a fact template is in both splits")
	}
}

// TestAskedFacts: a fact given as an answer follows the other speaker's
// question, which is not evidence, in both splits.
func TestAskedFacts(t *testing.T) {
	for _, split := range []Split{Tune, Measure} {
		asks := map[string]bool{}
		for _, ft := range splitOf(factTemplates, split) {
			if ft.ask != "" {
				asks[ft.ask] = true
			}
		}
		if len(asks) == 0 {
			t.Fatalf("%s: no fact is given as an answer", split)
		}
		found := 0
		for _, c := range Generate(split, Options{}).Conversations {
			for _, q := range c.Questions {
				ev := q.Evidence[0]
				if ev == 0 {
					continue
				}
				prev := c.Turns[ev-1]
				if !slices.ContainsFunc(slices.Collect(maps.Keys(asks)), func(a string) bool {
					return fill(a, c.Turns[ev].Speaker, prev.Speaker) == prev.Text
				}) {
					continue
				}
				found++
				if prev.Speaker == c.Turns[ev].Speaker || slices.Contains(q.Evidence, prev.ID) {
					t.Errorf("%s: %q answers %q", c.Name, c.Turns[ev].Line(), prev.Line())
				}
			}
		}
		if want := 2 * len(asks) * 10; found != want {
			t.Errorf("%s: %d answered facts, want %d", split, found, want)
		}
	}
}

// TestBM25Baseline checks the baseline finds what shares words with the
// question and misses what does not: a question built from an evidence
// turn's own words is found first.
func TestBM25Baseline(t *testing.T) {
	set := Generate(Tune, Options{Conversations: 2})
	c := set.Conversations[0]
	q := c.Questions[0]
	ev := c.Turns[q.Evidence[0]]
	set.Conversations = []Conversation{{Name: c.Name, Turns: c.Turns, Questions: []Question{{Text: ev.Line(), Category: "single", Evidence: q.Evidence}}}}
	rep, err := Evaluate("bm25", set, BM25)
	if err != nil {
		t.Fatal(err)
	}
	if rep.All.At1 != 100 {
		t.Errorf("an evidence turn's own text does not find it first: %+v", rep.All)
	}
	full, err := Evaluate("bm25", Generate(Tune, Options{Conversations: 2}), BM25)
	if err != nil {
		t.Fatal(err)
	}
	if full.All.At10 <= 0 || full.All.At10 >= 100 {
		t.Errorf("BM25 recall@10 = %.1f: the set is trivial or unanswerable", full.All.At10)
	}
}
