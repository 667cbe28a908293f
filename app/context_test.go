package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestWorkstationContextAndCompact checks that /context and /compact
// typed in an agent pane of the workstation are answered in the pane by
// the agent itself, without a model call, and that a [diet] table in the
// workspace's config.toml reaches the agent (its trigger shows in the
// view).
func TestWorkstationContextAndCompact(t *testing.T) {
	r := newWSRigWith(t, 160, 48, true, func(ws string, _ *Flags) {
		if err := os.MkdirAll(filepath.Join(ws, ".kws"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".kws", "config.toml"), []byte("[diet]\ntrigger_tokens = 9000\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	r.srv.Push(providertest.TextStep("hello there"))
	r.typeText("hi")
	r.press("Enter")
	r.waitFor("hello there")
	r.typeText("/context")
	r.press("Enter")
	r.waitFor("tool schemas (")
	r.waitFor("diet trigger 9,000")
	r.typeText("/compact")
	r.press("Enter")
	r.waitFor("not compacted: nothing old enough")
	if n := len(r.srv.Requests()); n != 1 {
		t.Fatalf("the commands made %d model calls", n-1)
	}
}
