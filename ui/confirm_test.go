package ui

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCloseDialogDefaultsToNo checks the close-pane question is tmux's
// (y/n) with no as the default: Enter, n and Esc keep the pane, y closes it.
func TestCloseDialogDefaultsToNo(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d, ff := newTestDriver(t, size[0], size[1], "shell", "shell")
			s := d.Script(t)
			s.Do(func() { ff.made[1].waiting = true })
			s.Press("Ctrl-b", "q", "1", "Ctrl-b", "x")
			s.WaitFor("(y/n)")
			golden(t, fmt.Sprintf("close_%dx%d", size[0], size[1]), d.Text())
			for _, no := range []string{"Enter", "n", "Esc"} {
				s.Press(no)
				if ff.made[1].closed || len(leaves(d)) != 2 || strings.Contains(d.Text(), "(y/n)") {
					t.Fatalf("%s did not cancel the close:\n%s", no, d.Text())
				}
				s.Press("Ctrl-b", "x")
				s.WaitFor("(y/n)")
			}
			s.Press("y")
			if !ff.made[1].closed || len(leaves(d)) != 1 {
				t.Fatal("y did not close the busy pane")
			}
		})
	}
}

// TestQuitDialogDefaultsToNo checks the quit question without a server:
// (y/n) with no as the default, y quits.
func TestQuitDialogDefaultsToNo(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d, ff := newTestDriver(t, size[0], size[1], "agent")
			s := d.Script(t)
			ff.setAgents(AgentStatus{Name: "agent-1", State: "thinking", Busy: true})
			for _, no := range []string{"", "Enter", "n", "Esc"} {
				if no != "" {
					s.Press(no)
					if strings.Contains(d.Text(), "still working") || ff.made[0].closed {
						t.Fatalf("%s did not cancel the quit:\n%s", no, d.Text())
					}
				}
				s.Press("Ctrl-b", "Q")
				s.WaitFor("(y/n)")
				if no == "" {
					golden(t, fmt.Sprintf("quit_%dx%d", size[0], size[1]), d.Text())
				}
			}
			_ = d.Press("y") // the application stops, so the driver reports it
			if err := d.Stop(); err != nil {
				t.Fatal(err)
			}
			if !ff.made[0].closed {
				t.Fatal("y did not quit")
			}
		})
	}
}

// TestQuitDialogWhenAttached checks the quit dialog of a client attached to
// a server: Detach, the safe choice, is focused and d presses it; n and
// Esc cancel; End session stays the second button.
func TestQuitDialogWhenAttached(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d, ff := newTestDriver(t, size[0], size[1], "agent")
			s := d.Script(t)
			ff.setAgents(AgentStatus{Name: "agent-1", State: "thinking", Busy: true})
			var detached atomic.Int32
			s.Do(func() { d.App.cfg.Detach = func() { detached.Add(1) } })
			ask := func() {
				t.Helper()
				s.Press("Ctrl-b", "Q")
				s.WaitFor("End session")
			}
			ask()
			golden(t, fmt.Sprintf("quit_attached_%dx%d", size[0], size[1]), d.Text())
			for _, key := range []string{"n", "Esc", "y"} {
				s.Press(key)
				if key == "y" {
					// y is no answer here: the dialog stays.
					if !strings.Contains(d.Text(), "End session") || detached.Load() != 0 || ff.made[0].closed {
						t.Fatalf("y in the Detach/End session dialog did something:\n%s", d.Text())
					}
					s.Press("Esc")
				}
				if strings.Contains(d.Text(), "End session") || detached.Load() != 0 || ff.made[0].closed {
					t.Fatalf("%s did not cancel:\n%s", key, d.Text())
				}
				ask()
			}
			d.Script(t).Press("Enter") // the focused button: Detach
			if detached.Load() != 1 || ff.made[0].closed {
				t.Fatalf("Enter did not detach (%d detaches)", detached.Load())
			}
			ask()
			s.Press("d")
			if detached.Load() != 2 || ff.made[0].closed {
				t.Fatalf("d did not detach (%d detaches)", detached.Load())
			}
			ask()
			// e ends the session, as the dialog says (so does Tab, Enter:
			// the second button).
			_ = d.Press("e")
			if err := d.Stop(); err != nil {
				t.Fatal(err)
			}
			if !ff.made[0].closed || detached.Load() != 2 {
				t.Fatal("e did not end the session")
			}
		})
	}
}

// TestBusyWordsAgree checks the quit dialogs' sentence agrees with the
// number of agents working: "agent-5 still working … Their turns stop"
// spoke of one agent in the plural.
func TestBusyWordsAgree(t *testing.T) {
	for _, tc := range []struct {
		busy          []string
		working, stop string
	}{
		{[]string{"agent-5"}, "agent-5 is still working", "its turn stops; its session is saved"},
		{[]string{"agent-1", "agent-2"}, "agent-1 and agent-2 are still working", "their turns stop; their sessions are saved"},
		{[]string{"a", "b", "c"}, "a, b and c are still working", "their turns stop; their sessions are saved"},
	} {
		w := busyWords(tc.busy)
		if w.working != tc.working || w.stops != tc.stop {
			t.Errorf("busyWords(%q) = %q / %q, want %q / %q", tc.busy, w.working, w.stops, tc.working, tc.stop)
		}
	}
	if got := capitalize("its turn stops"); got != "Its turn stops" {
		t.Errorf("capitalize: %q", got)
	}
}

// TestDialogKeepsItsKeysWhole: at every width the close question's
// "(y/n)" is drawn whole, never broken after its slash as tview breaks
// lines, and the question's words are never cut.
func TestDialogKeepsItsKeysWhole(t *testing.T) {
	for w := 60; w <= 110; w++ {
		d, ff := newTestDriver(t, w, 24, "shell", "shell")
		s := d.Script(t)
		s.Do(func() { ff.made[1].waiting = true })
		s.Press("Ctrl-b", "q", "1", "Ctrl-b", "x")
		s.WaitFor("(y/n)")
		if !strings.Contains(d.Text(), "busy.") || !strings.Contains(d.Text(), "anyway?") {
			t.Fatalf("at %d columns a word of the question is cut:\n%s", w, d.Text())
		}
	}
}
