package ui

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// section returns the lines of the help under title, up to the next blank
// line.
func section(help, title string) string {
	_, rest, ok := strings.Cut(help, title+"\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, "\n\n")
	return body
}

func TestHelpListsEachKeyUnderItsOwnSection(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40, "shell")
	s := d.Script(t)
	var help string
	s.Do(func() { help = d.App.helpText() })
	prefix, copyMode := section(help, "After the prefix C-b:"), section(help, "In copy mode:")
	if !strings.Contains(prefix, "0…9            select-window-N  show window N") {
		t.Errorf("the prefix section does not list 0…9:\n%s", prefix)
	}
	if strings.Contains(copyMode, "focus pane") || !strings.Contains(copyMode, "V              select-lines     select lines") {
		t.Errorf("copy mode lists a prefix key or loses its own select-lines:\n%s", copyMode)
	}
	if n := strings.Count(help, "0…9"); n != 1 {
		t.Errorf("0…9 is listed %d times:\n%s", n, help)
	}
}

// TestHelpListsTheSlashCommandsAndWraps: C-b ? lists the /commands an
// agent pane takes, and at 80 columns wraps a long line instead of
// cutting it (issue 26, item 8).
func TestHelpListsTheSlashCommandsAndWraps(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Layout: []pane.Kind{"shell"},
		Commands: [][2]string{{"/help", "list the commands and the skills"}, {"/review", "review the diff"}}}, 80, 40)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	s := d.Script(t)
	var help string
	s.Do(func() { help = d.App.helpText() })
	cmds := section(help, "Typed in an agent pane's prompt (Tab completes them):")
	if !strings.Contains(cmds, "/help          list the commands and the skills") || !strings.Contains(cmds, "/review        review the diff") {
		t.Errorf("the help does not list the /commands:\n%s", help)
	}
	s.Press("Ctrl-b", "?").WaitFor("kws help")
	// The detach line is wider than the dialog: its end is on the next
	// row, not cut.
	s.Press("PgDn").WaitFor("detach: the session and its agents keep")
	if !strings.Contains(d.Text(), "running (kws attach)") {
		t.Errorf("a help line is cut at 80 columns:\n%s", d.Text())
	}
}

// TestHelpListsTheKeysOfPanesNotOpen: the memory pane's keys are in the
// help before a memory pane opens, with config.toml's rebinding applied,
// and listed once when one is open.
func TestHelpListsTheKeysOfPanesNotOpen(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Bindings: map[string]string{"memory.approve": "A"}}, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	s := d.Script(t)
	var help string
	s.Do(func() { help = d.App.helpText() })
	if got := section(help, "In the memory pane:"); !strings.Contains(got, "A              approve          approve the candidate") {
		t.Fatalf("the help does not list the memory pane's keys before one is open:\n%s", help)
	}
	s.Press("Ctrl-b", "m")
	s.Do(func() { help = d.App.helpText() })
	if n := strings.Count(help, "In the memory pane:"); n != 1 {
		t.Fatalf("the memory pane's keys are listed %d times with one open:\n%s", n, help)
	}
}
