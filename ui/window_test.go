package ui

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kwsdev/kws/panes/pane"
)

// statusRow is the screen's last row: the status bar.
func statusRow(d *Driver) string {
	rows := strings.Split(strings.TrimRight(d.Text(), "\n"), "\n")
	return rows[len(rows)-1]
}

// TestWindowsAsInTmux walks a tmux user's window keys: C-b c opens a
// window with a shell, n/p/l/0…9 switch, the status bar lists the windows
// with the shown one starred, C-b , renames, C-b & asks and closes, and
// closing a window's last pane closes the window.
func TestWindowsAsInTmux(t *testing.T) {
	d, ff := newTestDriver(t, 120, 40)
	s := d.Script(t)
	s.Lacks("0:agent-1") // one window: the bar lists none
	s.Press("Ctrl-b", "c").Focused("shell-2")
	if row := statusRow(d); !strings.Contains(row, "0:agent-1- 1:shell-2*") {
		t.Fatalf("the status bar does not list the windows: %q", row)
	}
	// The window shows its one pane, full size; the first window's panes
	// are not drawn.
	s.Contains("0 shell-2").Lacks("agent-1>", "vault-1")
	s.Press("Ctrl-b", "n").Focused("agent-1").Contains("<vault-1>")
	s.Press("Ctrl-b", "p").Focused("shell-2")
	s.Press("Ctrl-b", "l").Focused("agent-1")
	s.Press("Ctrl-b", "1").Focused("shell-2")
	s.Press("Ctrl-b", "7").WaitFor("no window 7 (windows 0 to 1)")
	// The focus of each window is its own.
	s.Press("Ctrl-b", "0", "Ctrl-b", "q", "2").Focused("vault-1")
	s.Press("Ctrl-b", "1", "Ctrl-b", "0").Focused("vault-1")

	s.Press("Ctrl-b", "1", "Ctrl-b", ",")
	s.Press("Ctrl-u").Type("build").Press("Enter")
	if row := statusRow(d); !strings.Contains(row, "1:build*") {
		t.Fatalf("rename-window did not name the window: %q", row)
	}
	var wins []WindowInfo
	s.Do(func() { wins = d.App.Windows() })
	if len(wins) != 2 || wins[1].Name != "build" || !wins[1].Active || wins[0].Panes != 4 {
		t.Fatalf("Windows() = %+v", wins)
	}

	// C-b & asks, no by default; y closes the window and its panes.
	s.Press("Ctrl-b", "&").WaitFor("Kill window 1 (build)?").Press("n")
	s.Focused("shell-2")
	s.Press("Ctrl-b", "&").WaitFor("Kill window 1 (build)?").Press("y")
	s.Focused("vault-1").Lacks("1:build")
	if !ff.made[4].closed {
		t.Fatalf("kill-window left its pane open: %+v", ff.made[4])
	}
	// Closing the only pane of a window closes the window, not kws.
	s.Press("Ctrl-b", "c").Focused("shell-3")
	s.Press("Ctrl-b", "x", "y").Focused("vault-1").Lacks("shell-3")
	s.Do(func() { wins = d.App.Windows() })
	if len(wins) != 1 {
		t.Fatalf("%d windows after closing the second's only pane", len(wins))
	}
}

// TestChooseTreeListsWindowsAndPanes: C-b w lists every window and its
// panes, the focused pane chosen; moving and Enter focus a pane in another
// window; a digit shows that window.
func TestChooseTreeListsWindowsAndPanes(t *testing.T) {
	d, ff := newTestDriver(t, 120, 40)
	s := d.Script(t)
	s.Press("Ctrl-b", "c")
	s.Do(func() { ff.made[0].waiting = true })
	s.Press("Ctrl-b", "w")
	for _, want := range []string{"0: agent-1 ‼ (4 panes)", "    0.0 ‼ agent-1", "    0.3 stats-1", "1: shell-2* (1 pane)", "    1.0 shell-2"} {
		s.Contains(want)
	}
	// Up from the focused pane (1.0) is window 1, then pane 0.3, the
	// stats.
	s.Press("Up", "k", "Enter").Focused("stats-1").Lacks("1.0 shell-2")
	s.Press("Ctrl-b", "s", "1").Focused("shell-2")
	s.Press("Ctrl-b", "w", "Escape").Focused("shell-2").Lacks("0.3 stats-1")
}

// TestWaitingInAnotherWindow: a pane waiting for the user in a window not
// shown marks that window in the status bar, and C-b N goes there.
func TestWaitingInAnotherWindow(t *testing.T) {
	d, ff := newTestDriver(t, 120, 40)
	s := d.Script(t)
	s.Press("Ctrl-b", "c").Focused("shell-2")
	s.Do(func() { ff.made[1].waiting = true }) // vault-1, pane 2 of window 0
	s.Sync()
	if row := statusRow(d); !strings.Contains(row, "0:agent-1-‼") || !strings.Contains(row, "‼ pane 2 needs you (C-b N)") {
		t.Fatalf("the status bar does not say window 0 waits: %q", row)
	}
	s.Press("Ctrl-b", "N").Focused("vault-1")
	s.Do(func() { ff.made[4].waiting = true }) // shell-2, in window 1
	s.Sync()
	if row := statusRow(d); !strings.Contains(row, "pane 1.0") {
		t.Fatalf("a pane of window 1 is not named 1.0: %q", row)
	}
	s.Press("Ctrl-b", "Alt-n").Focused("shell-2")
}

// TestBreakPaneAndDisplayPanes: C-b ! moves the focused pane into a window
// of its own; C-b q then a number focuses that pane of the window.
func TestBreakPaneAndDisplayPanes(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40)
	s := d.Script(t)
	s.Press("Ctrl-b", "q").WaitFor("press a pane's number (0 to 3").Press("1").Focused("shell-1")
	s.Press("Ctrl-b", "!").Focused("shell-1").Contains("0 shell-1")
	var wins []WindowInfo
	s.Do(func() { wins = d.App.Windows() })
	if len(wins) != 2 || wins[0].Panes != 3 || wins[1].Panes != 1 {
		t.Fatalf("after break-pane: %+v", wins)
	}
	s.Press("Ctrl-b", "!").WaitFor("the pane is alone in its window")
	s.Press("Ctrl-b", "0").Focused("agent-1")
	s.Press("Ctrl-b", "q", "x").Focused("agent-1") // not a number: nothing moves
	s.Press("Ctrl-b", "q", "2").Focused("stats-1")
	s.Press("Ctrl-b", ";").Focused("agent-1")
}

// TestWindowsSurviveASnapshot: the journal keeps every window, its name,
// focus and zoom, and which one is shown.
func TestWindowsSurviveASnapshot(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40)
	s := d.Script(t)
	s.Press("Ctrl-b", "q", "2", "Ctrl-b", "c", "Ctrl-b", "%", "Ctrl-b", "z")
	s.Press("Ctrl-b", ",", "Ctrl-u").Type("logs").Press("Enter")
	s.Press("Ctrl-b", "c", "Ctrl-b", "1")
	want := snapshot(t, d)
	if len(want.Windows) != 3 || want.Window != 1 || want.Windows[1].Name != "logs" || !want.Windows[1].Zoomed || want.Windows[0].Focus != 2 {
		t.Fatalf("snapshot %+v", want)
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r := restoredDriver(t, &back, &fakeFactory{})
	if got := snapshot(t, r); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored %+v\nwant %+v", got, want)
	}
	if got, wantText := panesText(r), panesText(d); got != wantText {
		t.Fatalf("restored screen differs:\n%s\nwant:\n%s", got, wantText)
	}
	rs := r.Script(t)
	rs.Press("Ctrl-b", "0").Focused("vault-1")
}

// TestWindowCommands: the palette's new-window, select-window,
// rename-window and kill-window, and spawn -w.
func TestWindowCommands(t *testing.T) {
	d, ff := newTestDriver(t, 120, 40)
	s := d.Script(t)
	run := func(line string) { s.Do(func() { d.App.Command(line) }).Sync() }
	run("new-window -n mem memory")
	s.Focused("memory-1")
	// A word that is no kind of pane is a command, as in tmux: a shell
	// pane runs it.
	run("new-window -d 'make test'")
	s.Focused("memory-1")
	s.Do(func() {
		if p := ff.made[len(ff.made)-1]; p.spec.Kind != pane.KindShell || p.spec.Command != "make test" {
			t.Errorf("new-window COMMAND built %+v", p.spec)
		}
	})
	run("kill-window -t 2")
	run("select-window 0")
	s.Focused("agent-1")
	run("select-window mem")
	s.Focused("memory-1")
	run("rename-window notes")
	run("spawn -w 2 \"fix it\"")
	s.Focused("agent-3")
	if row := statusRow(d); !strings.Contains(row, "1:notes") || !strings.Contains(row, "2:agents*") {
		t.Fatalf("status bar after the commands: %q", row)
	}
	run("kill-window notes")
	s.Focused("agent-3")
	var wins []WindowInfo
	s.Do(func() { wins = d.App.Windows() })
	if len(wins) != 2 || wins[1].Name != "agents" || wins[1].Panes != 2 {
		t.Fatalf("after kill-window notes: %+v", wins)
	}
}

// TestRenameSession: C-b $ asks for the session's new name with the old
// one typed, renames it off the UI goroutine and says so; without a server
// it says there is no session to rename.
func TestRenameSession(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40)
	d.Script(t).Press("Ctrl-b", "$").WaitFor("not attached to a kws server: no session to rename")

	ff := &fakeFactory{}
	name := "ws"
	renamed := make(chan string, 1)
	d2, err := NewDriver(Config{Panes: ff.registry(), SessionName: func() string { return name },
		RenameSession: func(n string) error { renamed <- n; return nil }}, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d2.Stop() })
	s := d2.Script(t)
	s.Press("Ctrl-b", "$").WaitFor("rename session: ws")
	s.Type("-2").Press("Enter").WaitFor("session renamed ws-2 (kws attach -t ws-2)")
	if got := <-renamed; got != "ws-2" {
		t.Fatalf("renamed to %q", got)
	}
}

// TestLastPaneAfterSplit: as in tmux, C-b ; after a split goes back to the
// pane that was split.
func TestLastPaneAfterSplit(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40)
	s := d.Script(t)
	s.Press("Ctrl-b", "q", "1").Focused("shell-1")
	s.Press("Ctrl-b", "%").Focused("shell-2")
	s.Press("Ctrl-b", ";").Focused("shell-1")
	s.Press("Ctrl-b", ";").Focused("shell-2")
}
