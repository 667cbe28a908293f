package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/tokens"
)

// fixtureObservations returns the environment observations of the
// committed SWE-agent trajectories: real tool output of real sessions.
func fixtureObservations(t *testing.T) []string {
	t.Helper()
	out := trajectoryObservations(t, func(int) bool { return true })
	if len(out) < 100 {
		t.Fatalf("only %d observations in the fixtures", len(out))
	}
	return out
}

// trajectoryObservations returns the observations of the trajectories
// whose index, in name order, keep accepts.
func trajectoryObservations(tb testing.TB, keep func(k int) bool) []string {
	tb.Helper()
	files, _ := filepath.Glob("../testdata/trajectories/*.traj")
	sort.Strings(files)
	var out []string
	for k, f := range files {
		if !keep(k) {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var doc struct {
			History []struct {
				Role, Content string
			} `json:"history"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			tb.Fatal(err)
		}
		for i, m := range doc.History {
			if i > 1 && (m.Role == "user" || m.Role == "tool") && len(m.Content) > 200 {
				out = append(out, m.Content)
			}
		}
	}
	return out
}

// TestLongScriptedSession drives 200 model calls (10 user turns of 19 tool
// calls and an answer) over real tool output, and reports what was sent
// against the naive prompt and how much of each prompt repeats the
// previous one as an exact prefix (what provider prompt caching reuses).
func TestLongScriptedSession(t *testing.T) {
	obs := fixtureObservations(t)
	r := newRig(t, nil)
	for i := 0; i < 190; i++ {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("obs%03d.txt", i)), []byte(obs[i%len(obs)]), 0o644)
	}
	for turn := 0; turn < 10; turn++ {
		for k := 0; k < 19; k++ {
			i := turn*19 + k
			r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("obs%03d.txt", i), "mode": "full"})))
		}
		r.srv.Push(providertest.TextStep(fmt.Sprintf("Turn %d: read 19 files, nothing alarming.", turn)))
		r.run(fmt.Sprintf("turn %d: read the next 19 observation files and fix what fails", turn))
	}
	reqs := r.srv.Requests()
	if len(reqs) != 200 {
		t.Fatalf("%d calls, want 200", len(reqs))
	}
	tot := r.a.Totals()
	prefix, all := 0, 0
	var prev []provider.Message
	for _, req := range reqs {
		same := true
		for i, m := range req.Messages {
			n := tokens.Default().Count(m.Content).Tokens + 4
			all += n
			same = same && i < len(prev) && prev[i].Content == m.Content && prev[i].Role == m.Role
			if same {
				prefix += n
			}
		}
		prev = req.Messages
	}
	reduction := 100 * float64(tot.NaiveTokens-tot.SentTokens) / float64(tot.NaiveTokens)
	reuse := 100 * float64(prefix) / float64(all)
	t.Logf("200 calls: naive %d tokens, sent %d (%.1f%% saved); prompt prefix reuse %.1f%%; cache-weighted cost %.1f%% of naive resend; %d compactions, %d page faults",
		tot.NaiveTokens, tot.SentTokens, reduction, reuse, tot.Cost.Percent(), tot.Compactions, tot.PageFaults)
	if reduction < 50 || reuse < 70 {
		t.Fatalf("saved %.1f%% (want >= 50), prefix reuse %.1f%% (want >= 70)", reduction, reuse)
	}
}
