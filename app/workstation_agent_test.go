package app

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/panes/pane"
)

// TestWorkstationFailedCtxGetKeepsTheFocus types .ctx_get of a block the
// vault does not hold: the error shows in the agent pane, which keeps the
// focus, so the same line typed again goes to the input line and none of
// its keys reaches the vault pane (whose i injects the selected block).
func TestWorkstationFailedCtxGetKeepsTheFocus(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	if _, err := Keep(r.w.st.vault, "log", "user", []byte(strings.Repeat("a long build log line\n", 3000))); err != nil {
		t.Fatal(err)
	}
	r.press("Ctrl-b", "2", "R", "Ctrl-b", "0") // the vault pane lists the block
	r.typeText(".ctx_get id=ctx:deadbeef00")
	r.press("Enter")
	r.waitFor("✗ open ctx:deadbeef00: vault: no block with that id")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindAgent {
		t.Fatalf("a failed open moved the focus to %v", f)
	}
	r.typeText(".ctx_get id=")
	r.waitFor("› .ctx_get id=")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindAgent {
		t.Fatalf("the focus left the agent pane while typing: %v", f)
	}
	info, err := r.w.swarm.Info("agent-1")
	if err != nil {
		t.Fatal(err)
	}
	if text := r.d.Text(); info.Injected != 0 || strings.Contains(text, "Inject ctx:") {
		t.Fatalf("keys typed in the agent pane reached the vault pane (%d injected):\n%s", info.Injected, text)
	}
}
