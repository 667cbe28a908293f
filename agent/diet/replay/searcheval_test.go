package replay

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// searchSets splits the fixtures as every engineer does: sorted by name,
// index % 3 == 2 is the held-out MEASURE set, the rest TUNE; ALL is every
// fixture in one vault.
func searchSets(t *testing.T) map[string][]Conversation {
	files := fixtureFiles(t)
	sort.Strings(files)
	sets := map[string][]Conversation{}
	for i, f := range files {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		name := "TUNE"
		if i%3 == 2 {
			name = "MEASURE"
		}
		sets[name] = append(sets[name], c)
		sets["ALL"] = append(sets["ALL"], c)
	}
	return sets
}

// TestSearchFindsEvidence asks the fixtures' questions ("what did `CMD`
// print N messages ago", "line L of FILE in the window shown N messages
// ago", "the last run of CMD") and logs top-1 and top-3 hit rates of kws's
// search and of plain BM25 over the same blocks. The floor is far below
// the measured figures so it cannot flake, yet fails if search breaks.
func TestSearchFindsEvidence(t *testing.T) {
	sets := searchSets(t)
	counter := tokens.Default()
	for _, name := range []string{"TUNE", "MEASURE", "ALL"} {
		v := vaulttest.MustOpen(t)
		ev, err := EvalSearch(sets[name], diet.Defaults(), v, counter)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-7s %3d questions  kws top-1 %5.1f%% top-3 %5.1f%%  kws text-only top-1 %5.1f%% top-3 %5.1f%%  bm25 top-1 %5.1f%% top-3 %5.1f%%", name,
			ev.KWS.Questions, ev.KWS.Pct(ev.KWS.Top1), ev.KWS.Pct(ev.KWS.Top3), ev.Text.Pct(ev.Text.Top1), ev.Text.Pct(ev.Text.Top3),
			ev.BM25.Pct(ev.BM25.Top1), ev.BM25.Pct(ev.BM25.Top3))
		if testing.Verbose() {
			for _, q := range ev.Missed {
				t.Logf("  missed %s %s msg %d: %s", q.Kind, filepath.Base(q.Conv), q.Message, q.Text)
			}
		}
		if ev.KWS.Questions < 30 || ev.KWS.Pct(ev.KWS.Top3) < 50 || ev.Text.Pct(ev.Text.Top3) < 40 || ev.KWS.Top3 <= ev.BM25.Top3 {
			t.Errorf("%s: of %d questions kws search answered %d in its top 3 (%d from the text alone), BM25 %d",
				name, ev.KWS.Questions, ev.KWS.Top3, ev.Text.Top3, ev.BM25.Top3)
		}
	}
}
