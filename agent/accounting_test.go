package agent

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

// TestAccountingIsTrue checks the stats a session logs: each page fault
// counted once however many calls follow it, call numbers that go on
// across a compaction, chars that count what the tokens count (schemas
// and tool-call arguments too), and a first turn bigger than the budget
// shown as an overflow, once.
func TestAccountingIsTrue(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Profile.ContextWindow, c.Profile.CompletionReserve = 12000, 1000 })
	ids := make([]string, 3)
	for k := range ids {
		ids[k], _ = r.vault.Put([]byte(strings.Repeat("evidence line "+string(rune('a'+k))+"\n", 40)), vault.Meta{Kind: "tool:shell"})
	}
	huge := "please review this: " + strings.Repeat("the quick brown fox jumps over the lazy dog ", 1500)
	r.srv.Push(providertest.TextStep(".ctx_get id="+ids[0]+"\n.ctx_get id="+ids[1]),
		providertest.ToolStep(call("g", "ctx_get", map[string]any{"id": ids[2]})),
		providertest.ToolStep(call("r", "read_file", map[string]any{"path": "none.txt"})),
		providertest.TextStep("reviewed"))
	r.run(huge)
	r.srv.Push(providertest.TextStep("ok"))
	r.run("and now?")
	if _, err := r.a.Compact(); err != nil {
		t.Fatal(err)
	}
	r.srv.Push(providertest.TextStep("still ok"))
	r.run("after the compaction?")

	var evs []vault.DietEvent
	if err := r.vault.Stats(func(e vault.DietEvent) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	faults := 0
	for k, e := range evs {
		faults += e.PageFaults
		if e.Call != k+1 {
			t.Errorf("call %d logged as call %d", k+1, e.Call)
		}
	}
	if faults != 3 || r.a.Totals().PageFaults != 3 {
		t.Errorf("page faults: %d in the stats log, %d in the totals, want 3", faults, r.a.Totals().PageFaults)
	}
	// The first call sends the huge turn, the system prompt and the schemas.
	reqs := r.srv.Requests()
	first := evs[0]
	body := 0
	for _, m := range reqs[0].Messages {
		body += len(m.Content)
	}
	for _, s := range reqs[0].Tools {
		body += len(s.Name) + len(s.Description)
	}
	if first.SentChars < body || first.SentChars > body*2 || first.NaiveChars < first.SentChars {
		t.Errorf("first call: sent %d chars, naive %d, for a request of %d content and schema bytes", first.SentChars, first.NaiveChars, body)
	}
	var over []*CompactionInfo
	for _, e := range r.eventsOf(EvCompaction) {
		if e.Compaction.Overflow > 0 {
			over = append(over, e.Compaction)
		}
	}
	if len(over) != 1 || !strings.Contains(over[0].String(), "over the compaction budget") {
		t.Fatalf("overflow shown %d times: %+v", len(over), over)
	}
}
