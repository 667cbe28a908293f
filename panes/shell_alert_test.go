package panes

import (
	"strings"
	"testing"

	"github.com/rivo/tview"
)

// TestShellAlertsCoalesce: a burst of bells queues one UI update, which
// marks the pane with the latest notification; focusing it clears the
// mark, and an alert while it is focused marks nothing.
func TestShellAlertsCoalesce(t *testing.T) {
	env := testEnv()
	var queued []func()
	var notes []string
	env.Update = func(fn func()) { queued = append(queued, fn) }
	env.Notify = func(m string) { notes = append(notes, m) }
	p := &ShellPane{Box: tview.NewBox(), env: env}
	for range 1000 {
		p.alerted("")
	}
	p.alerted("Codex: approve the command?")
	if len(queued) != 1 {
		t.Fatalf("1001 alerts queued %d updates", len(queued))
	}
	queued[0]()
	if !p.NeedsYou() || len(notes) != 1 || !strings.Contains(notes[0], "asks for you: Codex: approve the command?") {
		t.Fatalf("after the burst: waiting %v, notes %q", p.NeedsYou(), notes)
	}
	p.Focus(func(tview.Primitive) {})
	if p.NeedsYou() {
		t.Fatal("focusing the pane left its mark")
	}
	p.alerted("again")
	queued[1]()
	if p.NeedsYou() {
		t.Fatal("an alert in the focused pane marked it")
	}
}
