package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestCompactionShrinksOrDoesNotRun reproduces the workstation's long
// turn over a full window, where every call "compacted" without shrinking
// (35306 → 35338): one user turn reads file after file. Each compaction
// that runs must shrink the request, the current user turn stays whole,
// and the request stays within the window.
func TestCompactionShrinksOrDoesNotRun(t *testing.T) {
	// Nothing is big enough for the diet: compaction alone keeps the
	// prompt in the window.
	small := func(c *Config) {
		c.Profile.ContextWindow, c.Profile.CompletionReserve = 16000, 1000
		c.Diet.MinBlockChars, c.Diet.Fold = 1<<30, false
	}
	r := newRig(t, small)
	const reads = 16
	for i := 0; i < reads; i++ {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("row %d of file %d: value %d\n", i, i, i*7), 110)), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "mode": "full"})))
	}
	r.srv.Push(providertest.TextStep("all read"))
	turn := "read f0.txt to f15.txt one by one and tell me the values"
	r.run(turn)
	evs := r.eventsOf(EvCompaction)
	if len(evs) == 0 {
		t.Fatal("no compaction in a turn that fills the window twice")
	}
	for _, e := range evs {
		c := e.Compaction
		t.Logf("compaction (%s): %d → %d tokens, covers %d messages", c.Reason, c.BeforeTokens, c.AfterTokens, c.Covered)
		if c.AfterTokens >= c.BeforeTokens {
			t.Errorf("compaction did not shrink the request: %d → %d", c.BeforeTokens, c.AfterTokens)
		}
	}
	if len(evs) > reads/2 {
		t.Errorf("%d compactions in %d calls", len(evs), reads+1)
	}
	window := r.a.cfg.Profile.ContextWindow - r.a.cfg.Profile.CompletionReserve
	for i, req := range r.srv.Requests() {
		if n := wireCount(req); n > window {
			t.Errorf("call %d sent %d tokens, over the window of %d", i+1, n, window)
		}
		if !hasTurn(req.Messages, turn) {
			t.Errorf("call %d lost the current user turn", i+1)
		}
	}
}

func hasTurn(msgs []provider.Message, turn string) bool {
	for _, m := range msgs {
		if m.Role == "user" && m.Content == turn {
			return true
		}
	}
	return false
}

// TestProviderUsageStartsCompaction checks the reactive trigger on the
// provider's own count: when the last call's reported prompt passed 90 %
// of (window − reserve), the next request is compacted even though our
// count is far below the budget.
func TestProviderUsageStartsCompaction(t *testing.T) {
	r := newRig(t, nil)
	for i := 0; i < 5; i++ {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("row of file %d\n", i), 200)), 0o644)
		answer := providertest.TextStep("noted")
		if i == 4 {
			answer.Usage = &provider.Usage{PromptTokens: 118000, CompletionTokens: 3}
		}
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "mode": "full"})), answer)
		r.run(fmt.Sprintf("read f%d.txt", i))
		if n := len(r.eventsOf(EvCompaction)); n != 0 {
			t.Fatalf("turn %d: %d compactions below every budget", i, n)
		}
	}
	r.srv.Push(providertest.TextStep("ok"))
	r.run("what did the files hold?")
	evs := r.eventsOf(EvCompaction)
	if len(evs) != 1 || evs[0].Compaction.Reason != "usage" || evs[0].Compaction.AfterTokens >= evs[0].Compaction.BeforeTokens {
		t.Fatalf("compactions after a reported 118000-token prompt: %+v", evs)
	}
	if b := r.a.budget(); evs[0].Compaction.BeforeTokens > b/4 {
		t.Fatalf("our count %d was not far below the budget %d", evs[0].Compaction.BeforeTokens, b)
	}
}

// TestCompactionIsNotRepeatedForAFewTokens: when what compaction keeps
// (schemas, the newest messages) nearly fills the budget by itself, each
// compaction gains a few tokens and breaks the prompt cache; counting the
// schemas, but without the gate, this session compacted on every call
// from the 17th message (5298 → 5270, 5288 → 5281, …). Compactions are
// at least compactKeep messages apart while the request fits the window,
// and each one shrinks it. (The window follows the tool schemas, which
// grow with the tools: a request over the window compacts every call, as
// it must.)
func TestCompactionIsNotRepeatedForAFewTokens(t *testing.T) {
	tight := func(c *Config) {
		c.Diet.TriggerTokens, c.Diet.Recent = 1, 2
		c.Diet.Fold = false // eliding would keep the history under the budget
		c.Profile.ContextWindow, c.Profile.CompletionReserve = 7600, 1000
	}
	r := newRig(t, tight)
	const turns = 12
	for i := 0; i < turns; i++ {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("row %d of file %d\n", i, i), 40)), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "mode": "full"})),
			providertest.TextStep("ok"))
		r.run(fmt.Sprintf("read f%d.txt; the build must stay green", i))
	}
	evs := r.eventsOf(EvCompaction)
	if len(evs) == 0 {
		t.Fatal("no compaction over the budget")
	}
	last := -compactKeep
	for _, e := range evs {
		c := e.Compaction
		if c.Skipped {
			continue // an overflow shown, not a compaction
		}
		t.Logf("compaction (%s): %d → %d tokens, covers %d messages", c.Reason, c.BeforeTokens, c.AfterTokens, c.Covered)
		if c.AfterTokens >= c.BeforeTokens {
			t.Errorf("compaction did not shrink the request: %d → %d", c.BeforeTokens, c.AfterTokens)
		}
		if c.Covered-last < compactKeep && c.BeforeTokens <= r.a.room() {
			t.Errorf("compaction covering %d messages follows one covering %d", c.Covered, last)
		}
		last = c.Covered
	}
	// The gate allows one compaction per compactKeep new messages.
	if n := len(r.a.history); len(evs) > n/compactKeep+1 {
		t.Errorf("%d compactions over %d messages", len(evs), n)
	}
}

// TestPresetTriggerFitsTheWindow: the safe preset's 64,000-token trigger
// on a 32k model would never diet before compaction; the agent lowers it
// below the compaction budget, with the recent window's room above it.
func TestPresetTriggerFitsTheWindow(t *testing.T) {
	r := newRig(t, func(c *Config) {
		p, _ := diet.Preset("safe")
		c.Diet = p
		c.Profile.ContextWindow, c.Profile.CompletionReserve = 32000, 4000
	})
	if trig, b := r.a.dietS.Params().TriggerTokens, r.a.budget(); trig > b*triggerShare/100 || trig < b/2 {
		t.Fatalf("safe preset on a 32k window: diet trigger %d, compaction budget %d", trig, b)
	}
	big := newRig(t, nil)
	if trig := big.a.dietS.Params().TriggerTokens; trig != diet.Defaults().TriggerTokens {
		t.Fatalf("on a 128k window the preset's trigger stays: %d", trig)
	}
}

// TestSqueezeWhenTheRecentWindowIsTooBig: one turn reads file after file
// on a small model; the newest messages alone outgrow the budget, so
// compaction can do nothing. The diet then sends all but the newest two
// as refs: every request fits the window, no compaction runs on every
// call, and the overflow is shown at most once.
func TestSqueezeWhenTheRecentWindowIsTooBig(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Profile.ContextWindow, c.Profile.CompletionReserve = 12000, 1000 })
	const reads = 8
	for i := range reads {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("row %d of file %d: value %d\n", i, i, i*7), 330)), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "mode": "full"})))
	}
	r.srv.Push(providertest.TextStep("all read"))
	r.run("read f0.txt to f7.txt one by one and tell me the values")
	refs := 0
	for k, req := range r.srv.Requests() {
		n := 0
		for _, m := range req.Messages {
			n += len(m.Content)
			// A read sent whole holds its 330 rows; a ref, an elided
			// run's mark or a squeezed message holds at most a line of it.
			if m.Role == "tool" && strings.Count(m.Content, "row ") < 2 {
				refs++
			}
		}
		if n/3 > r.a.room() {
			t.Errorf("request %d sends %d bytes, over the window", k, n)
		}
	}
	if refs == 0 {
		t.Fatal("no read of the turn went by ref")
	}
	compactions, overflows := 0, 0
	for _, e := range r.eventsOf(EvCompaction) {
		if e.Compaction.Skipped {
			overflows++
		} else {
			compactions++
		}
	}
	if compactions > 1 || overflows > 1 {
		t.Fatalf("%d compactions and %d overflows shown in one turn of %d calls", compactions, overflows, reads+1)
	}
}
