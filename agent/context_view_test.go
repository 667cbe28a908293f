package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/tools"
)

// hintMemory recalls one fixed hint block for every turn.
type hintMemory struct{}

func (hintMemory) Search(context.Context, string, string, int) ([]tools.MemoryHit, error) {
	return nil, nil
}
func (hintMemory) Save(context.Context, string, string, string) (string, string, error) {
	return "noop", "", nil
}
func (hintMemory) Recall(context.Context, string) (string, error) {
	return `<memory note="hints">the tests run with make check</memory>`, nil
}
func (hintMemory) Observe(context.Context, string, int) {}

// readFiles runs n turns that each read a bulky file in full.
func readFiles(r *rig, n int) {
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("f%d.txt", i)
		os.WriteFile(filepath.Join(r.ws, name), []byte(strings.Repeat(fmt.Sprintf("data row %d of file %d\n", i, i), 120)), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": name, "mode": "full"})),
			providertest.TextStep("noted"))
		r.run("read " + name)
	}
}

// TestContextViewCountsEachPart checks that /context's view adds up to its
// total, finds each part of a dieted prompt (system, tool schemas, memory
// hints, exact history and refs) and that the next request carries what
// it counted.
func TestContextViewCountsEachPart(t *testing.T) {
	diet := func(c *Config) { c.Diet.TriggerTokens, c.Memory = 0, hintMemory{} }
	r := newRig(t, diet)
	readFiles(r, 3)
	v, err := r.a.Context()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ContextPart{}
	sum := 0
	for _, p := range v.Parts {
		got[p.Name] = p
		sum += p.Tokens
	}
	if sum+3 != v.Total || v.Messages != 1+3*4 || v.Window != 128000 || v.Compact != 105318 {
		t.Errorf("view %+v: parts sum to %d", v, sum)
	}
	if got[PartSystem].Tokens < 100 || got[PartTools].Items != len(r.a.cfg.Tools) || got[PartTools].Tokens < 500 {
		t.Errorf("system %+v, tools %+v", got[PartSystem], got[PartTools])
	}
	if got[PartMemory].Items != 3 || got[PartMemory].Tokens < 10 || got[PartRefs].Items == 0 || got[PartExact].Items == 0 {
		t.Errorf("memory %+v, refs %+v, exact %+v", got[PartMemory], got[PartRefs], got[PartExact])
	}
	text := v.Render(80)
	for _, want := range []string{"next prompt of t: ", "compacts at 105,318", "history exact", "refs (", "memory hints (3)"} {
		if !strings.Contains(text, want) {
			t.Errorf("render lacks %q:\n%s", want, text)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line of %d columns at width 80: %q", n, l)
		}
	}
}

// TestCompactNowShrinksOrSaysSo checks that /compact summarizes the
// older turns and reports the prompt before and after, and that a
// compaction that would not shrink the prompt changes nothing and says
// so.
func TestCompactNowShrinksOrSaysSo(t *testing.T) {
	r := newRig(t, nil)
	readFiles(r, 4)
	before, _ := r.a.Context()
	rep, err := r.a.Compact()
	if err != nil {
		t.Fatal(err)
	}
	after, _ := r.a.Context()
	if !rep.Compacted || rep.Before != before.Total || rep.After >= rep.Before || after.Total >= before.Total || rep.Covered == 0 {
		t.Fatalf("report %+v; context %d → %d", rep, before.Total, after.Total)
	}
	if !strings.HasPrefix(rep.String(), "compacted: ") || len(r.eventsOf(EvCompaction)) != 1 || r.a.Totals().Compactions != 1 {
		t.Errorf("report %q, %d compaction events, totals %+v", rep, len(r.eventsOf(EvCompaction)), r.a.Totals())
	}
	again, err := r.a.Compact()
	if err != nil || again.Compacted || !strings.Contains(again.String(), "not compacted: nothing old enough") {
		t.Errorf("second /compact: %+v (%v)", again, err)
	}
	small := newRig(t, nil)
	for i := 0; i < 6; i++ {
		small.srv.Push(providertest.TextStep("ok"))
		small.run("hi")
	}
	v0, _ := small.a.Context()
	rep, err = small.a.Compact()
	v1, _ := small.a.Context()
	if err != nil || rep.Compacted || !strings.Contains(rep.String(), "a summary would not shrink it") || v1.Total != v0.Total ||
		len(small.eventsOf(EvCompaction)) != 0 || small.a.Totals().Compactions != 0 {
		t.Errorf("tiny history: %q (%v); context %d → %d", rep, err, v0.Total, v1.Total)
	}
	small.srv.Push(providertest.TextStep("still fine"))
	if small.run("and now?") != "still fine" {
		t.Error("the agent does not go on after an undone compaction")
	}
}

// TestContextRenderFits checks that every row of the view fits the width
// it is drawn for, with and without a known window.
func TestContextRenderFits(t *testing.T) {
	v := ContextView{Agent: "agent-12", Total: 123456, Trigger: 24000, Messages: 300,
		Parts: []ContextPart{{Name: PartExact, Tokens: 120000, Items: 250}, {Name: PartSeenRefs, Tokens: 3456, Items: 49}}}
	for _, window := range []int{0, 200000} {
		v.Window, v.Compact = window, window*85/100
		for _, w := range []int{60, 78, 158} {
			text := v.Render(w)
			for _, l := range strings.Split(text, "\n") {
				if n := len([]rune(l)); n > w {
					t.Errorf("window %d, width %d: row of %d columns %q", window, w, n, l)
				}
			}
			if window == 0 && !strings.Contains(text, "% of the trigger") || window > 0 && !strings.Contains(text, "% of compaction") {
				t.Errorf("window %d: the bar's label is wrong:\n%s", window, text)
			}
		}
	}
}

// gistWriter is a compaction model that answers with gist, or fails.
type gistWriter struct {
	gist string
	err  error
	got  string
}

func (g *gistWriter) Summarize(_ context.Context, kind, text string) (string, error) {
	g.got = kind + ": " + text
	return g.gist, g.err
}

// TestCompactionGist checks compact_model = "sidecar": the compaction
// model is given the covered conversation and its gist joins the
// extractive summary as a hint; when it fails, the extractive summary
// stands alone.
func TestCompactionGist(t *testing.T) {
	g := &gistWriter{gist: "The user had four files read; nothing failed."}
	r := newRig(t, func(c *Config) { c.CompactGist = g })
	readFiles(r, 4)
	if rep, err := r.a.Compact(); err != nil || !rep.Compacted {
		t.Fatalf("compact: %+v %v", rep, err)
	}
	if !strings.Contains(r.a.summary, "Gist (written by the compaction model; a hint, not evidence):\nThe user had four files read; nothing failed.\n</compaction>") ||
		!strings.HasPrefix(g.got, "conversation: user: read f0.txt") {
		t.Errorf("summary %q; the model got %q", r.a.summary, g.got)
	}
	failing := &gistWriter{err: context.DeadlineExceeded}
	r = newRig(t, func(c *Config) { c.CompactGist = failing })
	readFiles(r, 4)
	if rep, err := r.a.Compact(); err != nil || !rep.Compacted || strings.Contains(r.a.summary, "Gist") {
		t.Errorf("with a failing model: %+v %v, summary %q", rep, err, r.a.summary)
	}
}
