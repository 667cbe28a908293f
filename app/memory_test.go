package app

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kwsdev/kws/memory"
)

// TestWorkstationShowsMemoryCandidatesWaiting queues candidates the way an
// agent's memory does, off the UI goroutine: the memory store's event
// puts their count in the status bar, the memory pane's hints name its
// approve and delete keys at 80 columns, and approving the last one
// clears the count.
func TestWorkstationShowsMemoryCandidatesWaiting(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			r := newWSRig(t, size[0], size[1], false)
			r.waitFor("$")
			store := r.w.st.memory
			ctx := context.Background()
			for _, text := range []string{"the parser lives in internal/parse", "tests run with make test"} {
				if act, _, err := store.Promote(ctx, memory.Candidate{Text: text, Kind: "path", Confidence: 0.3},
					memory.ProjectScope(r.ws), memory.Provenance{Source: "user"}); err != nil || act != memory.ActionPending {
					t.Fatalf("promote %q: %v %v", text, act, err)
				}
			}
			r.waitFor("mem: 2 pending (C-b m)")
			r.press("Ctrl-b", "m")
			r.waitFor("a approve")
			hints := strings.Split(strings.TrimSuffix(r.d.Text(), "\n"), "\n")[size[1]-2]
			for _, want := range []string{"a approve", "D delete", "e edit", "Tab candidates"} {
				if !strings.Contains(hints, want) {
					t.Errorf("the memory pane's hints lack %q: %q", want, hints)
				}
			}
			r.press("Tab", "a")
			r.waitFor("mem: 1 pending")
			r.press("D")
			deadline := 0
			for strings.Contains(r.d.Text(), "mem: ") {
				if deadline++; deadline > 200 {
					t.Fatalf("the count stays after the queue emptied:\n%s", r.d.Text())
				}
				r.press() // a sync: the event's update runs
			}
		})
	}
}
