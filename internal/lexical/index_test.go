package lexical

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

func ids(rs []Scored) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestIndexRank(t *testing.T) {
	ix := New()
	ix.Add("a", Analyze(Prose, "the cat sat on the mat"))
	ix.Add("b", Analyze(Prose, "a dog chased the cats and the cat ran"))
	ix.Add("c", Analyze(Prose, "stock prices fell sharply"))
	got := ix.Rank(Prose.Terms("cats"), 10, nil)
	if len(got) != 2 || got[0].ID != "b" || got[1].ID != "a" || got[0].Score <= got[1].Score {
		t.Fatalf("Rank(cats) = %+v, want b (twice) before a", got)
	}
	if got := ix.Rank(Prose.Terms("cat"), 1, nil); len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("k=1: %+v", got)
	}
	if got := ix.Rank(Prose.Terms("cat"), 10, func(id string) bool { return id != "b" }); len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("keep: %+v", got)
	}
	if got := ix.Rank([]string{"unicorn"}, 10, nil); len(got) != 0 {
		t.Fatalf("no match: %+v", got)
	}
	// Equal scores: the newer document first.
	ix.Add("d", Analyze(Prose, "stock prices fell sharply"))
	if got := ids(ix.Rank(Prose.Terms("prices"), 10, nil)); fmt.Sprint(got) != "[d c]" {
		t.Fatalf("tie: %v", got)
	}
}

func TestIndexReplaceAndRemove(t *testing.T) {
	ix := New()
	ix.Add("a", Analyze(Prose, "meeting on tuesday"))
	ix.Add("b", Analyze(Prose, "lunch on friday"))
	ix.Add("a", Analyze(Prose, "meeting moved to friday"))
	if ix.Len() != 2 {
		t.Fatalf("Len = %d after a replace", ix.Len())
	}
	if got := ix.Rank([]string{"tuesdai"}, 10, nil); len(got) != 0 {
		t.Fatalf("the replaced text still matches: %+v", got)
	}
	if got := ids(ix.Rank(Prose.Terms("friday"), 10, nil)); len(got) != 2 {
		t.Fatalf("friday: %v", got)
	}
	if !ix.Remove("b") || ix.Remove("b") || ix.Len() != 1 {
		t.Fatal("Remove")
	}
	if got := ids(ix.Rank(Prose.Terms("friday lunch"), 10, nil)); fmt.Sprint(got) != "[a]" {
		t.Fatalf("after remove: %v", got)
	}
	if ix.DocFreq("fridai") != 1 || fmt.Sprint(ix.Holding("fridai")) != "[a]" {
		t.Fatalf("DocFreq %d Holding %v", ix.DocFreq("fridai"), ix.Holding("fridai"))
	}
	if _, ok := ix.Order("b"); ok {
		t.Fatal("Order of a removed document")
	}
}

// TestIndexCompaction checks that ranking after many removals (and the
// compactions they cause) equals ranking in an index built from only the
// remaining documents.
func TestIndexCompaction(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	text := func() string {
		s := ""
		for range 1 + r.IntN(6) {
			s += words[r.IntN(len(words))] + " "
		}
		return s
	}
	ix := New()
	docs := map[string]string{}
	for i := range 3000 {
		id := fmt.Sprint("d", r.IntN(1500))
		switch {
		case i%3 == 2:
			delete(docs, id)
			ix.Remove(id)
		default:
			docs[id] = text()
			ix.Add(id, Analyze(Prose, docs[id]))
		}
	}
	if len(ix.ids) > 2*len(docs)+compactMin {
		t.Fatalf("%d slots for %d documents: no compaction", len(ix.ids), len(docs))
	}
	// A fresh index, fed in the same order of last addition.
	fresh := New()
	bySlot := make([]string, 0, len(docs))
	for _, id := range ix.ids {
		if id != "" {
			bySlot = append(bySlot, id)
		}
	}
	for _, id := range bySlot {
		fresh.Add(id, Analyze(Prose, docs[id]))
	}
	if ix.Len() != len(docs) || fresh.Len() != len(docs) {
		t.Fatalf("Len %d, want %d", ix.Len(), len(docs))
	}
	for _, q := range []string{"alpha", "beta gamma", "theta zeta eta"} {
		a, b := ix.Rank(Prose.Terms(q), 20, nil), fresh.Rank(Prose.Terms(q), 20, nil)
		if fmt.Sprint(ids(a)) != fmt.Sprint(ids(b)) {
			t.Fatalf("%q: %v, fresh %v", q, ids(a), ids(b))
		}
		for i := range a {
			if d := a[i].Score - b[i].Score; d > 1e-9 || d < -1e-9 {
				t.Fatalf("%q: score %v, fresh %v", q, a[i].Score, b[i].Score)
			}
		}
	}
}

func TestEncoded(t *testing.T) {
	v := Analyze(Code, "open src/app.py and src/app.py again")
	ix := New()
	if err := ix.AddEncoded("x", v.Encode()); err != nil {
		t.Fatal(err)
	}
	ref := New()
	ref.Add("x", v)
	a, b := ix.Rank([]string{"app.py", "again"}, 5, nil), ref.Rank([]string{"app.py", "again"}, 5, nil)
	if len(a) != 1 || a[0] != b[0] {
		t.Fatalf("decoded %+v, direct %+v", a, b)
	}
	raw := v.Encode()
	for _, bad := range [][]byte{nil, {5}, raw[:len(raw)-1], append([]byte{1, 200}, raw[2:]...)} {
		if err := ix.AddEncoded("y", bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("AddEncoded(%v) = %v, want ErrCorrupt", bad, err)
		}
	}
	if ix.Len() != 1 {
		t.Fatalf("a damaged vector changed the index: Len %d", ix.Len())
	}
}
