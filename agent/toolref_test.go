package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestToolRefTellsTheCardItsBlock: when a tool's result goes to the model
// as a vault ref, the agent says so once (EvToolRef, the call and the
// block), and the block holds the exact output the tool returned, so the
// card can open it.
func TestToolRefTellsTheCardItsBlock(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Profile.ContextWindow, c.Profile.CompletionReserve = 12000, 1000 })
	for i := range 4 {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("row %d of file %d\n", i, i), 400)), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "mode": "full"})))
	}
	r.srv.Push(providertest.TextStep("read them"))
	r.run("read f0.txt to f3.txt")
	refs := r.eventsOf(EvToolRef)
	if len(refs) == 0 {
		t.Fatal("no tool result went by ref, or none was told")
	}
	seen := map[string]bool{}
	for _, e := range refs {
		if seen[e.CallID] {
			t.Errorf("call %s told twice", e.CallID)
		}
		seen[e.CallID] = true
		b, err := r.vault.Get(e.Text)
		if err != nil || !strings.Contains(string(b), "row ") {
			t.Errorf("call %s: block %s: %v %.80q", e.CallID, e.Text, err, b)
		}
	}
}
