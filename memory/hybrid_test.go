package memory

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/memory/recallset"
)

// storeCache fills one store per conversation once; searches use the
// fusion fu points to at the time.
type storeCache struct {
	fu       *fusion
	releases []func()
	stores   map[string]*Store
}

func (sc *storeCache) retrieve(c recallset.Conversation) (recallset.SearchFunc, func(), error) {
	return recallset.Texts(func(lines []string) (func(string, int) ([]string, error), func(), error) {
		s := sc.stores[c.Name]
		if s == nil {
			var release func()
			var err error
			if s, release, err = openFilled(lines, Options{}); err != nil {
				return nil, nil, err
			}
			sc.releases = append(sc.releases, release)
			sc.stores[c.Name] = s
		}
		return func(q string, k int) ([]string, error) {
			s.lex.fuse = sc.fu
			return s.searchTexts(q, k)
		}, func() {}, nil
	})(c)
}

// TestTuneFusion prints recall on one split of recallset (KWS_TUNE_SPLIT,
// tune by default) for each ranking alone (words, meaning, context,
// surface), the textbook fusion (k 60, equal weights), the former default
// and defaultFusion (KWS_TUNE_FUSION=1), and with KWS_TUNE_GRID=1 a grid
// of k and the four weights (minutes). defaultFusion was chosen with it
// on Tune only.
func TestTuneFusion(t *testing.T) {
	if os.Getenv("KWS_TUNE_FUSION") == "" {
		t.Skip("set KWS_TUNE_FUSION=1 to tune")
	}
	split, err := recallset.ParseSplit(os.Getenv("KWS_TUNE_SPLIT"))
	if err != nil {
		split = recallset.Tune
	}
	set := recallset.Generate(split, recallset.Options{})
	sc := &storeCache{fu: &fusion{}, stores: map[string]*Store{}}
	defer func() {
		for _, release := range sc.releases {
			release()
		}
	}()
	base, err := recallset.Evaluate("bm25", set, recallset.BM25)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s baseline BM25: %.1f %.1f %.1f", split, base.All.At1, base.All.At5, base.All.At10)
	grid := []fusion{
		{k: 60, words: 1, depth: 100},
		{k: 60, meaning: 1, depth: 100},
		{k: 60, context: 1, depth: 100},
		{k: 60, surface: 1, depth: 100},
		{k: 60, words: 1, meaning: 1, depth: 100},
		{k: 1, words: 3, meaning: 1, depth: 100}, // the default before the context ranking
		defaultFusion,
	}
	if os.Getenv("KWS_TUNE_GRID") != "" {
		for _, k := range []float64{0.5, 1, 2} {
			for _, w := range []float64{1, 2, 3} {
				for _, m := range []float64{0.5, 1, 2} {
					for _, c := range []float64{0, 1, 2, 3, 4} {
						for _, sf := range []float64{0, 1, 2, 3, 4} {
							grid = append(grid, fusion{k: k, words: w, meaning: m, context: c, surface: sf, depth: 100})
						}
					}
				}
			}
		}
	}
	for _, fu := range grid {
		*sc.fu = fu
		rep, err := recallset.Evaluate("hybrid", set, sc.retrieve)
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%s %+v: all %.1f %.1f %.1f", split, fu, rep.All.At1, rep.All.At5, rep.All.At10)
		for _, c := range recallset.Categories {
			r := rep.ByCategory[c]
			line += fmt.Sprintf(" | %s %.1f %.1f %.1f", c, r.At1, r.At5, r.At10)
		}
		t.Log(line)
	}
}

// TestHybridBeatsBM25 checks, on two conversations of recallset's Tune
// split, that the store's default search finds more than plain BM25 at
// every depth.
func TestHybridBeatsBM25(t *testing.T) {
	set := recallset.Generate(recallset.Tune, recallset.Options{Conversations: 2})
	base, err := recallset.Evaluate("bm25", set, recallset.BM25)
	if err != nil {
		t.Fatal(err)
	}
	got, err := recallset.Evaluate("default", set, recallset.Texts(RecallStore(Options{})))
	if err != nil {
		t.Fatal(err)
	}
	if got.All.At1 <= base.All.At1 || got.All.At5 <= base.All.At5 || got.All.At10 <= base.All.At10 {
		t.Errorf("recall@1/5/10 %.1f/%.1f/%.1f, BM25 %.1f/%.1f/%.1f", got.All.At1, got.All.At5, got.All.At10,
			base.All.At1, base.All.At5, base.All.At10)
	}
}

func searchIDs(t *testing.T, s *Store, query string, scopes []string) []string {
	t.Helper()
	hits, err := s.Search(context.Background(), query, scopes, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// TestSearchFusesWordsAndMeaning: a memory that shares a rare, inflected
// word with the query ranks first, with a score that says it led every
// ranking, and the word index ranks within the asked scopes only. The
// memories are saved hours apart, so each one's context is its own words.
func TestSearchFusesWordsAndMeaning(t *testing.T) {
	s, clk := nearStore(t)
	fill(t, s, proj)
	add := func(scope, text string) Memory {
		clk.skip(time.Hour)
		return mustAdd(t, s, scope, "note", text)
	}
	target := add(proj, "Caroline: I went to the LGBTQ support group yesterday")
	add(proj, "Melanie: yesterday I went to the beach with the kids")
	add(proj, "Caroline: the group chat was quiet yesterday")
	other := add(GlobalScope, "Caroline supports the LGBTQ groups downtown")
	hits, err := s.Search(context.Background(), "When did Caroline go to the LGBTQ support groups?", []string{proj}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[0].ID != target.ID || hits[0].Score != 1 || hits[1].Score >= hits[0].Score {
		t.Fatalf("hits %+v, want %s first with score 1", hits, target.ID)
	}
	for _, h := range hits {
		if h.Scope != proj || h.ID == other.ID {
			t.Errorf("a hit outside the asked scope: %+v", h)
		}
	}
	if ids := searchIDs(t, s, "LGBTQ", nil); len(ids) < 2 || !slices.Contains(ids[:2], other.ID) || !slices.Contains(ids[:2], target.ID) {
		t.Errorf("every scope: %v", ids)
	}
}

// TestSearchWordIndexFollowsChanges: the word index follows adds, updates
// (text and scope) and deletes, and a reopened store builds it from the
// memories it loads.
func TestSearchWordIndexFollowsChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, Options{})
	fill(t, s, proj)
	m := mustAdd(t, s, proj, "note", "the staging database is called heliotrope")
	if ids := searchIDs(t, s, "heliotrope", nil); len(ids) == 0 || ids[0] != m.ID {
		t.Fatalf("added: %v", ids)
	}
	m.Text = "the staging database is called marigold"
	if _, err := s.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	if ids := searchIDs(t, s, "marigold", nil); len(ids) == 0 || ids[0] != m.ID {
		t.Fatalf("updated: %v", ids)
	}
	hits, _ := s.Search(ctx, "heliotrope", nil, 10)
	for _, h := range hits {
		if h.Score >= 0.75 || strings.Contains(h.Text, "heliotrope") {
			t.Fatalf("the old text still matches words: %+v", h)
		}
	}
	m.Scope = GlobalScope
	moved, err := s.Update(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if ids := searchIDs(t, s, "marigold", []string{GlobalScope}); len(ids) == 0 || ids[0] != moved.ID {
		t.Fatalf("moved to global: %v", ids)
	}
	if ids := searchIDs(t, s, "marigold", []string{proj}); slices.Contains(ids, moved.ID) {
		t.Fatalf("still in the project scope: %v", ids)
	}

	again := mustOpen(t, dir, Options{})
	if ids := searchIDs(t, again, "marigold", nil); len(ids) == 0 || ids[0] != moved.ID {
		t.Fatalf("reopened: %v", ids)
	}
	if err := again.Delete(moved.ID); err != nil {
		t.Fatal(err)
	}
	hits, _ = again.Search(ctx, "marigold", nil, 10)
	for _, h := range hits {
		if h.ID == moved.ID {
			t.Fatalf("deleted memory found: %+v", h)
		}
	}
}

// TestRecallKeepsWordMatches: a memory that shares a word with the query
// is recalled even when the embedder finds it less similar than
// RecallMinScore; one that shares none needs the similarity.
func TestRecallKeepsWordMatches(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{RecallMinScore: 0.99})
	m := mustAdd(t, s, proj, "note", "deploys go through the zephyr pipeline on weekdays only, never on Friday evenings")
	mustAdd(t, s, proj, "note", "the cafeteria closes at three")
	_, used, err := s.Recall(ctx, "is zephyr safe to use now", []string{proj}, 1000, nil)
	if err != nil || len(used) != 1 || used[0].ID != m.ID {
		t.Fatalf("word match not recalled: %+v %v", used, err)
	}
	hits, _ := s.search(ctx, "is zephyr safe to use now", []string{proj}, 1)
	if len(hits) == 0 || hits[0].Score >= 0.99 {
		t.Fatalf("the test needs a low similarity: %+v", hits)
	}
}

// TestSearchDuringChanges runs searches while memories are added,
// updated and deleted (run with -race): the word index is shared.
func TestSearchDuringChanges(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{})
	fill(t, s, proj)
	done := make(chan error, 1)
	go func() {
		for i := range 40 {
			m, err := s.Add(ctx, Memory{Text: fmt.Sprintf("release %d ships from the mainline branch", i), Scope: proj})
			if err == nil {
				m.Text = fmt.Sprintf("release %d ships from the stable branch", i)
				m, err = s.Update(ctx, m)
			}
			if err == nil && i%2 == 0 {
				err = s.Delete(m.ID)
			}
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for searching := true; searching; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			searching = false
		default:
			if _, err := s.Search(ctx, "which branch do releases ship from", nil, 5); err != nil {
				t.Fatal(err)
			}
		}
	}
	hits, err := s.Search(ctx, "stable branch release", []string{proj}, 50)
	if err != nil {
		t.Fatal(err)
	}
	stable := 0
	for _, h := range hits {
		if strings.Contains(h.Text, "mainline") {
			t.Errorf("an updated memory's old text: %+v", h)
		}
		if strings.Contains(h.Text, "stable") {
			stable++
		}
	}
	if stable != 20 {
		t.Errorf("%d stable-branch memories found, want the 20 kept", stable)
	}
}
