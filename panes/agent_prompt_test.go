package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/swarm"
)

// paste pastes text into the pane as a terminal's bracketed paste does.
func pasteInto(p *AgentPane, text string) {
	p.PasteHandler()(text, func(tview.Primitive) {})
}

// TestAgentPromptIsMultiLine: Alt-Enter, Shift-Enter and Ctrl-j insert a
// newline, Enter sends the whole prompt with its line breaks, the prompt
// grows on screen, and Up moves within it before it recalls history.
func TestAgentPromptIsMultiLine(t *testing.T) {
	p, fa, _ := newAgentPane(t)
	send(p, "an earlier question")
	typeText(p, "first line")
	key(p, tcell.KeyEnter, 0, tcell.ModAlt)
	typeText(p, "second line")
	key(p, tcell.KeyEnter, 0, tcell.ModShift)
	typeText(p, "third")
	key(p, tcell.KeyCtrlJ, 0, tcell.ModCtrl)
	typeText(p, "fourth")
	key(p, tcell.KeyRune, 'm', tcell.ModAlt|tcell.ModCtrl) // ESC CR, as tcell reads it
	typeText(p, "fifth")
	text := screenText(render(t, p, 80, 20))
	for _, want := range []string{"› first line", "second line", "third", "fourth", "fifth"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the prompt does not show %q:\n%s", want, text)
		}
	}
	// Up on the last line moves the cursor up, not to the history.
	key(p, tcell.KeyUp, 0, 0)
	if got := p.input.GetText(); got != "first line\nsecond line\nthird\nfourth\nfifth" {
		t.Fatalf("Up inside the prompt changed it to %q", got)
	}
	key(p, tcell.KeyEnter, 0, 0)
	if got := fa.sent[len(fa.sent)-1]; got != "first line\nsecond line\nthird\nfourth\nfifth" {
		t.Fatalf("sent %q", got)
	}
	if p.input.GetText() != "" {
		t.Fatalf("the prompt kept %q after sending", p.input.GetText())
	}
}

// TestAgentPromptLongPasteIsAPlaceholderSentExactly: a 62-line stack
// trace pasted with CRLF breaks shows as one placeholder line, is not lost
// to Up, and reaches the agent exactly, breaks as LF.
func TestAgentPromptLongPasteIsAPlaceholderSentExactly(t *testing.T) {
	p, fa, _ := newAgentPane(t)
	send(p, "an earlier question")
	var trace []string
	for i := range 62 {
		trace = append(trace, "  File \"handler.py\", line "+strings.Repeat("9", i%3+1)+", in handler_"+strings.Repeat("x", i%5))
	}
	typeText(p, "why does this fail? ")
	pasteInto(p, strings.Join(trace, "\r\n"))
	if got := p.input.GetText(); got != "why does this fail? [Pasted text #1 +62 lines]" {
		t.Fatalf("the prompt holds %q", got)
	}
	key(p, tcell.KeyUp, 0, 0) // one line: Up recalls history…
	key(p, tcell.KeyDown, 0, 0)
	if got := p.input.GetText(); got != "why does this fail? [Pasted text #1 +62 lines]" {
		t.Fatalf("after Up and Down the prompt holds %q", got)
	}
	key(p, tcell.KeyEnter, 0, 0)
	want := "why does this fail? " + strings.Join(trace, "\n")
	if got := fa.sent[len(fa.sent)-1]; got != want {
		t.Fatalf("sent %d bytes, want %d: %.120q", len(got), len(want), got)
	}
	// A short paste is itself, its breaks kept.
	pasteInto(p, "a\r\nb")
	if got := p.input.GetText(); got != "a\nb" {
		t.Fatalf("a two-line paste shows %q", got)
	}
}

// TestAgentPaneEscStopsTheTurn: Esc clears a ref selection, and with none
// stops the running turn, as in Claude Code and Codex.
func TestAgentPaneEscStopsTheTurn(t *testing.T) {
	p, fa, _ := newAgentPane(t)
	fa.info.State = "thinking"
	key(p, tcell.KeyEscape, 0, 0)
	if fa.cancels != 1 {
		t.Fatalf("Esc on a busy agent: %d cancels", fa.cancels)
	}
}

// TestToolCardShowsAndOpensItsVaultBlock: a tool result the model got as
// a ref shows its block on the card; Tab selects it and Enter opens the
// exact output (issue 26: "a tool card never shows its vault ref").
func TestToolCardShowsAndOpensItsVaultBlock(t *testing.T) {
	p, _, opened := newAgentPane(t)
	loop(p, agent.Event{Type: agent.EvToolCall, Tool: "shell", CallID: "c1", Args: `{"command":"seq 1 5000"}`})
	loop(p, agent.Event{Type: agent.EvToolResult, Tool: "shell", CallID: "c1", Text: "STDOUT:\n1\n2\n3\n4\n5\n6\n7\n8"})
	loop(p, agent.Event{Type: agent.EvToolRef, CallID: "c1", Text: "ctx:36bf0123abcd"})
	text := screenText(render(t, p, 100, 20))
	if !strings.Contains(text, "exact output in the vault: ctx:36bf0123abcd") {
		t.Fatalf("the card does not show its block:\n%s", text)
	}
	key(p, tcell.KeyTab, 0, 0)
	key(p, tcell.KeyEnter, 0, 0)
	if len(*opened) != 1 || (*opened)[0] != "ctx:36bf0123abcd" {
		t.Fatalf("Tab, Enter opened %v", *opened)
	}
}

// TestAgentTitleShowsTheTurnsTime: while a turn runs, the title says for
// how long and that Esc stops it (issue 26, item 4).
func TestAgentTitleShowsTheTurnsTime(t *testing.T) {
	p, fa, _ := newAgentPane(t)
	fa.info.State = "thinking"
	fa.info.TurnStarted = p.env.Time().Add(-12 * time.Second)
	if title := p.Title(); !strings.Contains(title, "agent-1 · thinking 12s · Esc stops") {
		t.Fatalf("title %q", title)
	}
	fa.info.State, fa.info.TurnStarted = "idle", time.Time{}
	if title := p.Title(); strings.Contains(title, "Esc") {
		t.Fatalf("an idle agent's title %q", title)
	}
}

// TestSlashCommandsComplete: Tab completes a /command being typed (the
// common prefix of several, naming them), and selects refs otherwise; an
// EvCommand's reply (/help) shows in the transcript (issue 26, item 8).
func TestSlashCommandsComplete(t *testing.T) {
	p, _, _ := newAgentPane(t)
	var told []string
	p.env.Notify = func(msg string) { told = append(told, msg) }
	typeText(p, "/co")
	key(p, tcell.KeyTab, 0, 0)
	if got := p.input.GetText(); got != "/co" || len(told) == 0 || told[len(told)-1] != "/context  /compact" {
		t.Fatalf("/co Tab: %q, told %q", got, told)
	}
	typeText(p, "n")
	key(p, tcell.KeyTab, 0, 0)
	if got := p.input.GetText(); got != "/context " {
		t.Fatalf("/con Tab: %q", got)
	}
	p.OnEvent(swarm.Event{Type: swarm.EvCommand, Agent: "agent-1", Text: "/help", Reply: "commands:\n  /help     list the commands"})
	if text := screenText(render(t, p, 100, 20)); !strings.Contains(text, "/help     list the commands") {
		t.Fatalf("/help's reply not shown:\n%s", text)
	}
}

// TestToolCardsReadAsCards: a shell result shows what the command
// printed, its stderr marked and a non-zero exit, not the STDOUT:,
// STDERR: and EXIT CODE: labels the model reads; an approved edit's card
// expands to its diff, not its JSON arguments (issue 26, item 11).
func TestToolCardsReadAsCards(t *testing.T) {
	p, _, _ := newAgentPane(t)
	loop(p, agent.Event{Type: agent.EvToolCall, Tool: "shell", CallID: "s1", Args: `{"command":"make"}`})
	loop(p, agent.Event{Type: agent.EvToolResult, Tool: "shell", CallID: "s1", Text: "STDOUT:\nbuilding\nSTDERR:\nerror: no rule\nEXIT CODE: 2"})
	loop(p, agent.Event{Type: agent.EvToolCall, Tool: "edit_file", CallID: "e1", Args: `{"path":"a.go","old":"x","new":"y"}`})
	loop(p, agent.Event{Type: agent.EvToolResult, Tool: "edit_file", CallID: "e1", Text: "edited a.go",
		Preview: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x := 1\n+y := 1\n"})
	text := screenText(render(t, p, 100, 30))
	for _, want := range []string{"⎿ building", "⎿ stderr: error: no rule", "⎿ exit 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("the shell card does not show %q:\n%s", want, text)
		}
	}
	for _, raw := range []string{"STDOUT:", "STDERR:", "EXIT CODE"} {
		if strings.Contains(text, raw) {
			t.Errorf("the card shows the raw label %q:\n%s", raw, text)
		}
	}
	key(p, tcell.KeyCtrlE, 0, tcell.ModCtrl)
	text = screenText(render(t, p, 100, 30))
	if !strings.Contains(text, "-x := 1") || !strings.Contains(text, "+y := 1") || strings.Contains(text, `"old":"x"`) {
		t.Errorf("the expanded edit card does not show its diff:\n%s", text)
	}
}
