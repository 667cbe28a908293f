package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// nearStore opens a store whose clock the test can move on.
func nearStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	return mustOpen(t, t.TempDir(), Options{Now: c.now}), c
}

// skip moves c on by d.
func (c *clock) skip(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// nearIDs returns the ids of the memories of scopes (nil: every scope)
// whose context documents match query, best first.
func nearIDs(t *testing.T, s *Store, query string, scopes []string) []string {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []string
	for _, sc := range s.lexRank(query, scopes, 50).near {
		ids = append(ids, idOfKey(sc.ID))
	}
	slices.Sort(ids)
	return ids
}

// sorted returns the ids of ms, sorted.
func sorted(ms ...Memory) []string {
	ids := []string{}
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestContextFindsAnswerByQuestion: the turn that answers a question
// asked in the turn before it is found by the question's words, through
// its context document, and Search ranks it when the context ranking
// counts.
func TestContextFindsAnswerByQuestion(t *testing.T) {
	s, clk := nearStore(t)
	fill(t, s, proj)
	clk.skip(time.Hour)
	ask := mustAdd(t, s, proj, "note", "Melanie: what have you been researching lately?")
	answer := mustAdd(t, s, proj, "note", "Caroline: adoption agencies, it has been a dream of mine")
	later := mustAdd(t, s, proj, "note", "Melanie: that is wonderful")
	if got, want := nearIDs(t, s, "What did Caroline research?", nil), sorted(ask, answer, later); !reflect.DeepEqual(got, want) {
		t.Fatalf("context matches %v, want %v", got, want)
	}
	s.lex.fuse = &fusion{k: 1, words: 1, context: 1, depth: 100}
	if ids := searchIDs(t, s, "What has Melanie been researching?", nil); len(ids) < 3 || !slices.Contains(ids[:3], answer.ID) {
		t.Fatalf("search: %v, want %s among the first three", ids, answer.ID)
	}
}

// TestContextGapAndScopes: memories more than 30 minutes apart, or in
// other scopes, are not each other's context.
func TestContextGapAndScopes(t *testing.T) {
	s, c := nearStore(t)
	a := mustAdd(t, s, proj, "note", "the deploy key lives in the ops vault")
	mustAdd(t, s, GlobalScope, "note", "zeppelin rides are overpriced")
	b := mustAdd(t, s, proj, "note", "rotate it every quarter")
	c.skip(31 * time.Minute)
	far := mustAdd(t, s, proj, "note", "the marmalade recipe needs seville oranges")
	if got, want := nearIDs(t, s, "deploy key", nil), sorted(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("deploy key: %v, want %v", got, want)
	}
	if got := nearIDs(t, s, "zeppelin", nil); len(got) != 1 || slices.Contains(got, a.ID) || slices.Contains(got, b.ID) {
		t.Errorf("zeppelin reaches another scope's memories: %v", got)
	}
	if got, want := nearIDs(t, s, "marmalade", nil), sorted(far); !reflect.DeepEqual(got, want) {
		t.Errorf("marmalade across the gap: %v, want %v", got, want)
	}
	if got := nearIDs(t, s, "zeppelin", []string{proj}); len(got) != 0 {
		t.Errorf("asked scope only: %v", got)
	}
}

// TestContextFollowsChanges: a new memory joins its predecessor's
// context, a deleted one leaves its neighbours' (which become each
// other's), an updated one's neighbours see its new words, and one moved
// to another scope leaves its old neighbours for new ones.
func TestContextFollowsChanges(t *testing.T) {
	ctx := context.Background()
	s, _ := nearStore(t)
	a := mustAdd(t, s, proj, "note", "alpha apricot")
	b := mustAdd(t, s, proj, "note", "bravo blueberry")
	if got, want := nearIDs(t, s, "bravo", nil), sorted(a, b); !reflect.DeepEqual(got, want) {
		t.Fatalf("bravo: %v, want %v", got, want)
	}
	c := mustAdd(t, s, proj, "note", "charlie cherry")
	if got, want := nearIDs(t, s, "charlie", nil), sorted(b, c); !reflect.DeepEqual(got, want) {
		t.Fatalf("added: %v, want %v", got, want)
	}
	if err := s.Delete(b.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := nearIDs(t, s, "charlie", nil), sorted(a, c); !reflect.DeepEqual(got, want) {
		t.Errorf("deleted: charlie %v, want %v", got, want)
	}
	if got := nearIDs(t, s, "bravo", nil); len(got) != 0 {
		t.Errorf("deleted: bravo %v", got)
	}
	c.Text = "charlie damson"
	if _, err := s.Update(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, want := nearIDs(t, s, "damson", nil), sorted(a, c); !reflect.DeepEqual(got, want) {
		t.Errorf("updated: damson %v, want %v", got, want)
	}
	if got := nearIDs(t, s, "cherry", nil); len(got) != 0 {
		t.Errorf("updated: cherry %v", got)
	}
	g := mustAdd(t, s, GlobalScope, "note", "golf grape")
	c.Scope = GlobalScope
	moved, err := s.Update(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := nearIDs(t, s, "damson", nil), sorted(g, moved); !reflect.DeepEqual(got, want) {
		t.Errorf("moved: damson %v, want %v", got, want)
	}
	if got, want := nearIDs(t, s, "alpha", nil), sorted(a); !reflect.DeepEqual(got, want) {
		t.Errorf("moved: alpha %v, want %v", got, want)
	}
}

// TestContextIncrementalMatchesBuild: after many adds, updates, moves and
// deletes, some of them over the 30-minute gap, the context index the
// store kept current ranks every word as one built anew from its
// memories does.
func TestContextIncrementalMatchesBuild(t *testing.T) {
	ctx := context.Background()
	s, clk := nearStore(t)
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"amber", "birch", "cedar", "dune", "ember", "fjord", "glade", "heath"}
	text := func() string { return fmt.Sprintf("%s %s", words[r.IntN(len(words))], words[r.IntN(len(words))]) }
	scopes := []string{proj, GlobalScope}
	s.lexBuild()
	var live []Memory
	for range 300 {
		if r.IntN(10) == 0 {
			clk.skip(time.Duration(r.IntN(40)) * time.Minute)
		}
		switch op := r.IntN(4); {
		case op < 2 || len(live) == 0:
			live = append(live, mustAdd(t, s, scopes[r.IntN(2)], "note", text()))
		case op == 2:
			i := r.IntN(len(live))
			live[i].Text, live[i].Scope = text(), scopes[r.IntN(2)]
			m, err := s.Update(ctx, live[i])
			if err != nil {
				t.Fatal(err)
			}
			live[i] = m
		default:
			i := r.IntN(len(live))
			if err := s.Delete(live[i].ID); err != nil {
				t.Fatal(err)
			}
			live = slices.Delete(live, i, i+1)
		}
	}
	rank := func() map[string][]string {
		out := map[string][]string{}
		for _, w := range words {
			ranks := s.lexRank(w, nil, 1000)
			for _, sc := range ranks.near {
				out[w] = append(out[w], fmt.Sprintf("near %s %.6f", sc.ID, sc.Score))
			}
			for _, sc := range ranks.surf {
				out[w] = append(out[w], fmt.Sprintf("surface %s %.6f", sc.ID, sc.Score))
			}
			slices.Sort(out[w])
		}
		return out
	}
	kept := rank()
	s.lex.built = false
	if built := rank(); !reflect.DeepEqual(kept, built) {
		t.Errorf("kept current:\n%v\nbuilt anew:\n%v", kept, built)
	}
}

// TestSurfaceKeepsPlainWords: the surface view finds a memory by words
// the prose analyzer drops or stems away, and follows updates.
func TestSurfaceKeepsPlainWords(t *testing.T) {
	ctx := context.Background()
	s, _ := nearStore(t)
	m := mustAdd(t, s, proj, "note", "Caroline: it is what it is, named or not")
	mustAdd(t, s, proj, "note", "Melanie: the name escapes me")
	surf := func(query string) []string {
		s.mu.RLock()
		defer s.mu.RUnlock()
		ranks := s.lexRank(query, nil, 10)
		if len(ranks.words) != 0 {
			t.Errorf("%q: prose words match %v", query, ranks.words)
		}
		var ids []string
		for _, sc := range ranks.surf {
			ids = append(ids, idOfKey(sc.ID))
		}
		return ids
	}
	if got := surf("what is it"); !reflect.DeepEqual(got, []string{m.ID}) {
		t.Errorf("what is it: %v, want %s", got, m.ID)
	}
	m.Text = "Caroline: nothing to see"
	if _, err := s.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := surf("what is it"); len(got) != 0 {
		t.Errorf("updated: %v", got)
	}
}
