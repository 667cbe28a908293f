package replay

import (
	"sort"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// TestPageFaultsReachTheModel replays the fixtures' tune and measure
// halves as long multi-agent sessions at the default mode and pages in the
// evidence of every question as a model would: every answer reaches the
// next prompt exact (or names the message holding it exact), and every
// question's evidence is reached.
func TestPageFaultsReachTheModel(t *testing.T) {
	files := fixtureFiles(t)
	sort.Strings(files)
	tune, measure := SplitSets(files)
	for _, set := range []struct {
		name  string
		files []string
	}{{"swarm-tune", tune}, {"swarm-measure", measure}} {
		conv := Concat(set.name, swarmSessions(t, set.files))
		r, err := PageFaults(conv, diet.Defaults(), vaulttest.MustOpen(t), tokens.Default())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d questions; faults 0:%d 1:%d 2:%d 3+:%d, unreachable %d; %.0f%% within one fault, %.2f faults a question, %d KiB paged in, %d pointer answers",
			set.name, r.Questions, r.Faults[0], r.Faults[1], r.Faults[2], r.Questions-r.Faults[0]-r.Faults[1]-r.Faults[2]-r.Unreachable,
			r.Unreachable, r.WithinOne(), r.FaultsPerQuestion(), r.PagedBytes>>10, r.Pointers)
		if r.Questions < 50 {
			t.Errorf("%s: only %d questions", set.name, r.Questions)
		}
		if r.Pointers != 0 || r.Unreachable != 0 {
			t.Errorf("%s: %d pointer answers, %d unreachable: %v", set.name, r.Pointers, r.Unreachable, r.Failures)
		}
		// 99 % on the tune half and 100 % on the measure half when the run
		// handles and their budget were tuned on the tune half.
		if r.WithinOne() < 90 {
			t.Errorf("%s: %.0f%% of the evidence exact in the prompt or one fault away, want >= 90%%", set.name, r.WithinOne())
		}
	}
}
