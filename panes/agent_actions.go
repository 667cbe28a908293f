package panes

import (
	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/panes/pane"
)

// PersistState returns the agent's name (pane.StateAgent) and, once its
// model is up, the id of the session it records (pane.StateSession), so
// that a restored pane resumes that session under the same name.
func (p *AgentPane) PersistState() map[string]string {
	st := map[string]string{pane.StateAgent: p.name}
	if info, err := p.agents.Info(p.name); err == nil && info.Session != "" {
		st[pane.StateSession] = info.Session
	}
	return st
}

func (p *AgentPane) togglePause() {
	info, err := p.agents.Info(p.name)
	if err == nil {
		if info.Paused {
			err = p.agents.Resume(p.name)
		} else {
			err = p.agents.Pause(p.name)
		}
	}
	if err != nil {
		p.env.Tell(err.Error())
	}
}

// askRestart asks, on the input line, whether to restart the agent:
// Ctrl-r is a shell's history search too, and a habit must not end the
// agent's session. The next key answers (answerRestart).
func (p *AgentPane) askRestart() { p.restartAsk = true }

// answerRestart takes the key that answers the restart question: y
// restarts the agent; any other key (n, Esc) keeps it, as tmux's
// confirm-before does.
func (p *AgentPane) answerRestart(ev *tcell.EventKey) {
	p.restartAsk = false
	if ev.Key() == tcell.KeyRune && ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl) == 0 && (ev.Rune() == 'y' || ev.Rune() == 'Y') {
		p.restart()
	}
}

// restartQuestion is what the input line, w cells wide, shows while the
// pane asks whether to restart the agent: the longest wording that fits
// whole, so "(y/n)" is never cut off.
func (p *AgentPane) restartQuestion(w int) string {
	forms := []string{
		"Restart " + p.name + " in a new session? (y/n)  The current one stays saved.",
		"Restart " + p.name + " in a new session? (y/n)",
		"Restart " + p.name + "? (y/n)",
	}
	for _, q := range forms {
		if runewidth.StringWidth(q) <= w {
			return q
		}
	}
	return "Restart? (y/n)"
}

func (p *AgentPane) restart() {
	if err := p.agents.Restart(p.name); err != nil {
		p.env.Tell(err.Error())
		return
	}
	p.cur = nil
	p.dropQueued()
	p.view.add(&entry{kind: entrySystem, text: "restarted: a new session with an empty history"})
}

// continueOn restarts the agent on session, the fork a /rewind of the
// conversation made: it goes on from before the rewound turn.
func (p *AgentPane) continueOn(session string) {
	if err := p.agents.RestartOn(p.name, session); err != nil {
		p.view.add(&entry{kind: entryError, text: "rewind: " + err.Error()})
		return
	}
	p.dropQueued()
}

// cancel stops the running turn and drops the queued ones, as the swarm
// does; on an idle agent it clears the input.
func (p *AgentPane) cancel() {
	if info, err := p.agents.Info(p.name); err == nil && !info.Busy() {
		p.setPrompt("")
		return
	}
	if err := p.agents.Cancel(p.name); err != nil {
		p.env.Tell(err.Error())
		return
	}
	p.dropQueued()
}

func (p *AgentPane) answer(d permission.Decision) {
	if !p.dialog.waiting() {
		return
	}
	req, more := p.dialog.next()
	if more {
		p.showAsk()
	}
	if err := p.agents.Answer(req.ID, permission.Answer{Decision: d}); err != nil {
		p.env.Tell(err.Error())
	}
}

// CloseWarning says when closing the pane would stop the agent's work.
func (p *AgentPane) CloseWarning() string {
	if info, err := p.agents.Info(p.name); err == nil && info.Busy() {
		return p.name + " is working; closing stops its turn (its session is saved)."
	}
	return ""
}

// PasteBuffer pastes the workstation's paste buffer into the input line,
// as a paste from the terminal would (tmux's prefix ] pastes into any
// pane).
func (p *AgentPane) PasteBuffer() {
	text := p.env.Buffer.Text()
	if text == "" {
		p.env.Tell("the paste buffer is empty (copy text in a shell pane's copy mode first: " + p.env.PrefixName() + " [, v, y)")
		return
	}
	if h := p.PasteHandler(); h != nil {
		h(text, func(tview.Primitive) {})
	}
}
