package agent

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestStatsToolReportsPerToolFigures checks the stats tool the model may
// call: it reads the session's own figures, the latest prompt's parts and,
// per tool, the calls, output tokens and tokens the diet saved on them.
func TestStatsToolReportsPerToolFigures(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Diet.TriggerTokens = 0 })
	readFiles(r, 3)
	st := r.a.ToolStats()
	if len(st) != 1 || st[0].Name != "read_file" || st[0].Calls != 3 || st[0].OutputTokens < 1000 ||
		st[0].SavedTokens <= 0 || st[0].SavedTokens >= st[0].OutputTokens {
		t.Fatalf("tool stats %+v", st)
	}
	r.srv.Push(providertest.ToolStep(call("s1", "stats", map[string]any{})), providertest.TextStep("I have room."))
	r.run("how much context do you have left?")
	m := r.lastMessage(7)
	for _, want := range []string{"session figures of t after 7 model calls", "saved", "latest prompt:", "tool schemas (",
		"read_file             3", "stats                 1"} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("stats result lacks %q:\n%s", want, m.Content)
		}
	}
	if m.Role != "tool" || m.ToolCallID != "s1" {
		t.Errorf("stats result %+v", m)
	}
}
