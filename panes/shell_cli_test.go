package panes

import (
	"strings"
	"testing"

	"github.com/rivo/tview"
)

// TestReadCLIState reads screens as Claude Code, Codex, apt and a plain
// program leave them: a question near the cursor is waiting (and names
// the question), a spinner in the title or "esc to interrupt" is working,
// anything else nothing.
func TestReadCLIState(t *testing.T) {
	for _, tc := range []struct {
		name, title, screen string
		want                cliState
		question            string
	}{
		{"claude code asks", "✳ Claude Code", "● Bash(rm -rf build)\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. No, and tell Claude what to do differently\n", cliWaiting, "Do you want to proceed?"},
		{"a menu names the question above it", "", "Edit file\n╭──────╮\n│ Do you want to make this edit to main.go? │\n│ ❯ 1. Yes │\n", cliWaiting, "Do you want to make this edit to main.go?"},
		{"codex asks", "", "Would you like to run the following command?\n  $ make test\n› 1. Yes, proceed\n", cliWaiting, "Would you like to run the following command?"},
		{"apt asks", "", "After this operation, 12 MB will be used.\nDo you want to continue? [Y/n] ", cliWaiting, "Do you want to continue? [Y/n]"},
		{"claude code works", "⠙ Fixing the failing test", "● Reading main.go\n", cliWorking, ""},
		{"codex works", "", "• Working (12s • esc to interrupt)\n", cliWorking, ""},
		{"done: the prompt is back", "✳ Claude Code", "● Done. The test passes.\n\n> \n", cliUnknown, ""},
		{"a question far above the cursor is old", "", "Do you want to proceed? yes\n" + strings.Repeat("output\n", 20) + "$ ", cliUnknown, ""},
		{"plain output", "vim", "hello\nworld\n", cliUnknown, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := strings.Split(strings.TrimRight(tc.screen, "\n"), "\n")
			got, q := readCLIState(tc.title, rows, len(rows)-1)
			if got != tc.want || q != tc.question {
				t.Fatalf("readCLIState = %v %q, want %v %q", got, q, tc.want, tc.question)
			}
		})
	}
}

// TestCLIStateMarksThePane: a question marks the unfocused pane waiting
// with the question in its title, and the end of a working spell marks it
// done; working shows in the title.
func TestCLIStateMarksThePane(t *testing.T) {
	env := testEnv()
	var notes []string
	env.Notify = func(m string) { notes = append(notes, m) }
	p := &ShellPane{Box: tview.NewBox(), env: env}
	name := "claude"
	p.job.Store(&name)
	p.cli.Store(int32(cliWorking))
	if got := p.Title(); got != "shell: claude · working" {
		t.Fatalf("working title %q", got)
	}
	p.cliChanged(cliWorking, cliWaiting, "Do you want to proceed?")
	if !p.NeedsYou() || p.Title() != "shell: claude · Do you want to proceed?" || len(notes) != 1 ||
		!strings.Contains(notes[0], "claude asks for you: Do you want to proceed?") {
		t.Fatalf("waiting: %v %q %q", p.NeedsYou(), p.Title(), notes)
	}
	p.Focus(func(tview.Primitive) {})
	p.cli.Store(int32(cliUnknown))
	p.cliChanged(cliWorking, cliUnknown, "")
	if p.NeedsYou() {
		t.Fatal("the focused pane was marked done")
	}
	p.Blur()
	p.cliChanged(cliWorking, cliUnknown, "")
	if !p.NeedsYou() || p.Title() != "shell: claude · done" {
		t.Fatalf("done: %v %q", p.NeedsYou(), p.Title())
	}
}
