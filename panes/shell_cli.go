package panes

import (
	"strings"
	"unicode/utf8"

	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/termsafe"
)

// Another agent CLI run in a shell pane (Claude Code, Codex, opencode,
// aider…) shows its state to whoever looks at it: a spinner in the
// terminal's title while it works ("⠋ Fixing the test"), "esc to
// interrupt" under its answer, a question with its choices when it needs
// the user ("Do you want to proceed?", "❯ 1. Yes", "(y/n)"). A shell pane
// reads the same, every jobCheck while a job other than the shell runs,
// so that such a pane shows its state as kws's own agents do: working in
// its title, waiting for you and done (a working spell that ended) marked
// ‼ like an alert, which next-waiting reaches.

// cliState is an agent CLI's state as its screen shows it.
type cliState int

const (
	cliUnknown cliState = iota
	cliWorking
	cliWaiting
)

// questionRows is how many rows up from the cursor a question may be: a
// menu of choices sits below it.
const questionRows = 8

// questions are the lower-cased marks of a question waiting for the user.
var questions = []string{
	"(y/n)", "[y/n]", "(yes/no)", "[yes/no]", "do you want to", "would you like to",
	"❯ 1. yes", "› 1. yes", "press enter to continue", "allow command?", "approve this",
}

// workingMarks are the lower-cased marks on screen of an agent CLI at work.
var workingMarks = []string{"esc to interrupt", "esc to cancel", "ctrl+c to interrupt"}

// readCLIState reads the state of the program in the foreground from the
// title it set and the screen's rows; cursor is the cursor's row. A
// question within questionRows of the cursor means waiting, and the
// question is returned; else a spinner leading the title or a working
// mark on screen means working.
func readCLIState(title string, rows []string, cursor int) (cliState, string) {
	for y := min(cursor+questionRows/2, len(rows)-1); y >= max(0, cursor-questionRows); y-- {
		line := strings.ToLower(rows[y])
		for _, q := range questions {
			if strings.Contains(line, q) {
				return cliWaiting, questionText(rows, y)
			}
		}
	}
	if r, _ := utf8.DecodeRuneInString(title); r > 0x2800 && r <= 0x28FF {
		return cliWorking, ""
	}
	for _, row := range rows {
		line := strings.ToLower(row)
		for _, m := range workingMarks {
			if strings.Contains(line, m) {
				return cliWorking, ""
			}
		}
	}
	return cliUnknown, ""
}

// questionText is the question at row y for the pane's title: the row
// itself, or for a menu's first choice the nearest row above it that asks
// ("?"), else the nearest with text.
func questionText(rows []string, y int) string {
	text := strings.TrimSpace(rows[y])
	if strings.Contains(strings.ToLower(text), "1. yes") {
		nearest := ""
		for up := y - 1; up >= 0 && up >= y-4; up-- {
			t := strings.TrimSpace(rows[up])
			if nearest == "" {
				nearest = t
			}
			if strings.Contains(t, "?") {
				nearest = t
				break
			}
		}
		if nearest != "" {
			text = nearest
		}
	}
	text = strings.Trim(text, "│|╭╮╰╯─ ")
	return clip(termsafe.OneLine(text), 60)
}

// checkCLI reads the state of the job in s's foreground, none at the
// shell's prompt, and reports whether it changed; a change is handed to
// the UI goroutine (cliChanged).
func (p *ShellPane) checkCLI(s *pty.Terminal) bool {
	state, question := cliUnknown, ""
	if j := p.job.Load(); j != nil && *j != "" {
		text, title, cur := s.Glance()
		rows := strings.Split(text, "\n")
		// A program that hides the cursor (a full-screen CLI) asks at the
		// bottom of what it drew.
		cursor := len(rows) - 1
		if cur.Visible {
			cursor = min(cur.Y, cursor)
		}
		state, question = readCLIState(title, rows, cursor)
	}
	prev := cliState(p.cli.Swap(int32(state)))
	if prev == state {
		return false
	}
	p.env.Update(func() { p.cliChanged(prev, state, question) })
	return true
}

// cliChanged marks the pane when the agent CLI in it asks a question, or
// when a working spell ends (done), as an alert does.
func (p *ShellPane) cliChanged(prev, state cliState, question string) {
	switch {
	case state == cliWaiting:
		if question == "" {
			question = "waiting for you"
		}
		p.markWaiting(question)
	case state == cliUnknown && prev == cliWorking:
		p.markWaiting("done")
	}
}
