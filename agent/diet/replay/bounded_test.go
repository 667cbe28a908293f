package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// generated is a session of n messages: a system prompt, then user turns
// every 200 messages, each followed by assistant steps and their tool
// outputs, every seventh of them a bulky log.
func generated(n int) Conversation {
	c := Conversation{Name: fmt.Sprintf("generated-%d", n), Messages: []diet.Message{{Role: "system", Content: "You are a coding agent."}}}
	for i := 0; len(c.Messages) < n; i++ {
		if i%100 == 0 {
			c.Messages = append(c.Messages, diet.Message{Role: "user", Content: fmt.Sprintf("Task %d: make module %d pass its tests.", i/100, i/100)})
			continue
		}
		cmd := fmt.Sprintf("pytest tests/test_m%d.py -x", i%37)
		c.Messages = append(c.Messages, diet.Message{Role: "assistant", Content: fmt.Sprintf("Step %d. Running the tests of module %d.\n```\n%s\n```", i, i%37, cmd)})
		var out strings.Builder
		lines := 3 + i%5
		if i%7 == 0 {
			lines = 60
		}
		for l := range lines {
			fmt.Fprintf(&out, "tests/test_m%d.py::test_case_%d_%d %s\n", i%37, i, l, []string{"PASSED", "PASSED", "FAILED"}[(i+l)%3])
		}
		fmt.Fprintf(&out, "%d passed, %d failed in 0.%02ds\n", lines-lines/3, lines/3, i%100)
		c.Messages = append(c.Messages, diet.Message{Role: "tool", Kind: "tool:shell", Source: cmd, Content: out.String()})
	}
	c.Messages = c.Messages[:n]
	return c
}

// TestBoundedAtAnyLength replays, at the default mode, every fixture as a
// multi-agent session concatenated four times, every call's prompt
// checked against the vault, and a generated session of 10,000 messages,
// its final prompt checked: no call's prompt goes over the trigger plus
// its recent window.
func TestBoundedAtAnyLength(t *testing.T) {
	files := fixtureFiles(t)
	var sessions []Conversation
	for range 4 {
		sessions = append(sessions, swarmSessions(t, files)...)
	}
	long := Concat("swarm-all-x4", sessions)
	o := runVerified(t, long, diet.Defaults(), nil)
	gen := generated(10000)
	v := vaulttest.MustOpen(t)
	g, err := Run(gen, diet.Defaults(), v, tokens.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(v, gen.Messages, g.Final); err != nil {
		t.Fatalf("%s: final prompt: %v", gen.Name, err)
	}
	for _, r := range []Row{o.Row, g.Row} {
		t.Logf("%s: %d messages, %d calls, peak %d tokens, %d epochs, final prompt %d tokens (%.1f%% smaller), cost %.1f%% of naive",
			r.File, r.Messages, r.Calls, r.PeakTokens, r.Epochs, r.FinalSentTokens, r.FinalReductionPct, r.CostPct)
		if r.CallsOverBound != 0 {
			t.Errorf("%s: %d calls over trigger + recent window, by up to %d tokens", r.File, r.CallsOverBound, r.PeakOverBound)
		}
	}
}
