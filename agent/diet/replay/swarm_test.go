package replay

import (
	"sort"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
)

func swarmSessions(t testing.TB, files []string) []Conversation {
	t.Helper()
	var out []Conversation
	for _, f := range files {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Swarm(c))
	}
	return out
}

// TestSwarmHandsTheSameTaskOn checks the multi-agent set's shape: every
// fixture becomes a session of three roles whose handoffs carry their own
// system prompt and the task text exactly.
func TestSwarmHandsTheSameTaskOn(t *testing.T) {
	for _, f := range fixtureFiles(t) {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		s := Swarm(c)
		task := c.Messages[taskIndex(c.Messages)].Content
		var handoffs []string
		for _, m := range s.Messages {
			if m.Kind == KindHandoff {
				handoffs = append(handoffs, m.Content)
			}
		}
		if len(handoffs) != len(swarmRoles)-1 || len(s.Messages) != len(c.Messages)+len(handoffs) {
			t.Fatalf("%s: %d handoffs, %d of %d messages", s.Name, len(handoffs), len(s.Messages), len(c.Messages))
		}
		if !strings.HasPrefix(s.Messages[0].Content, swarmRoles[0].brief) {
			t.Fatalf("%s: the first role's system prompt lacks its brief", s.Name)
		}
		for k, h := range handoffs {
			if !strings.Contains(h, "\n## Task\n\n"+task+"\n\n") || !strings.Contains(h, swarmRoles[k+1].brief+"\n\n"+c.Messages[0].Content) {
				t.Fatalf("%s: handoff %d lacks the exact task or its role's system prompt", s.Name, k)
			}
		}
	}
}

// TestSwarmSetResolvesExactly replays every multi-agent session at a
// 2,000 token trigger and checks every prompt of every call losslessly.
func TestSwarmSetResolvesExactly(t *testing.T) {
	p := diet.Defaults()
	p.TriggerTokens = 2000
	dieted := 0
	defer func() {
		if dieted < 15 {
			t.Errorf("only %d of 21 sessions were dieted at trigger 2000", dieted)
		}
	}()
	for _, conv := range swarmSessions(t, fixtureFiles(t)) {
		t.Run(conv.Name, func(t *testing.T) {
			o := runVerified(t, conv, p, nil)
			if o.Row.FinalSentTokens < o.Row.FinalNaiveTokens {
				dieted++
			}
		})
	}
}

// TestSwarmLongSession replays the tune set's, the measure set's and all
// multi-agent sessions concatenated, at the defaults, checks every prompt
// losslessly, holds every call to the trigger plus its recent window (the
// long one folds old messages into runs to stay there) and the long one
// to the cost and size goals.
func TestSwarmLongSession(t *testing.T) {
	files := fixtureFiles(t)
	sort.Strings(files)
	tune, measure := SplitSets(files)
	sets := []struct {
		name  string
		files []string
	}{{"swarm-tune", tune}, {"swarm-measure", measure}, {"swarm-all", files}}
	for _, set := range sets {
		long := Concat(set.name, swarmSessions(t, set.files))
		p := diet.Defaults()
		folded := 0
		o := runVerified(t, long, p, func(res diet.Result) {
			folded = 0
			for _, m := range res.Messages {
				if m.Content == diet.FoldMarker || m.Elided {
					folded++
				}
			}
		})
		r := o.Row
		t.Logf("%s: %d messages, cost %.1f%% of naive, final prompt %.1f%% smaller, all calls %.1f%% smaller, peak %d, %d epochs, %d folded",
			r.File, r.Messages, r.CostPct, r.FinalReductionPct, r.ReductionPctTotal, r.PeakTokens, r.Epochs, folded)
		if r.PeakOverBound != 0 {
			t.Errorf("%s: %d calls over trigger + recent window, by up to %d tokens", r.File, r.CallsOverBound, r.PeakOverBound)
		}
		if set.name == "swarm-all" && folded == 0 {
			t.Errorf("%s: nothing folded in the final prompt", r.File)
		}
		if set.name == "swarm-all" && (r.CostPct > 55 || r.FinalReductionPct < 80) {
			t.Fatalf("long multi-agent session: cost %.1f%% of naive (want <= 55), final prompt %.1f%% smaller (want >= 80)",
				r.CostPct, r.FinalReductionPct)
		}
	}
}

func TestCostOfAppendOnlyCalls(t *testing.T) {
	calls := []CallTokens{{Naive: 100, Sent: 100}, {Naive: 150, Sent: 120, Prefix: 100}, {Naive: 200, Sent: 60, Prefix: 0}}
	sent, naive := Cost(calls, 0.1)
	if want := 100 + 20 + 10.0 + 60; sent != want {
		t.Fatalf("sent cost %v, want %v", sent, want)
	}
	if want := 100 + 50 + 10.0 + 50 + 15; naive != want {
		t.Fatalf("naive cost %v, want %v", naive, want)
	}
}
