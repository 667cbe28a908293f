package panes

import "github.com/kwsdev/kws/swarm"

// pendingTurn is a user turn the swarm holds and has not started: typed in
// the pane, or a message to the agent.
type pendingTurn struct {
	text  string
	entry *entry
	// shown is set when the turn's › line is in the transcript already:
	// the agent was idle, so the turn starts at once.
	shown bool
}

// queueTurn shows a turn just queued: in the transcript when the agent
// starts on it at once, else as a queued line below the transcript, which
// moves into it when the turn starts (startTurn). An answer still
// streaming goes on in its own entry.
func (p *AgentPane) queueTurn(text string, startsNow bool) {
	t := &pendingTurn{text: text, entry: &entry{kind: entryQueued, text: text}, shown: startsNow}
	if startsNow {
		t.entry.kind = entryUser
		p.cur = nil
		p.view.add(t.entry)
	}
	p.pending = append(p.pending, t)
}

// startsNow reports whether info, taken before a turn was queued, says
// the agent starts on it at once.
func startsNow(info swarm.Info) bool { return !info.Busy() && !info.Paused }

// startTurn moves the queued line of the turn the swarm started (EvTurn's
// text, with its injected blocks) into the transcript, after everything
// the turns before it showed. Turns shown when they were queued have
// started by now and are forgotten.
func (p *AgentPane) startTurn(text string) {
	typed, _ := splitTurn(text)
	for i, t := range p.pending {
		if t.text != typed {
			continue
		}
		var rest []*pendingTurn
		for _, o := range p.pending[:i] {
			if !o.shown {
				rest = append(rest, o)
			}
		}
		p.pending = append(rest, p.pending[i+1:]...)
		if !t.shown {
			t.entry.kind, t.entry.rendered = entryUser, nil
			p.cur = nil
			p.view.add(t.entry)
		}
		return
	}
}

// dropQueued forgets the queued turns, which the swarm dropped (a cancel
// or a restart), and says so in the transcript.
func (p *AgentPane) dropQueued() {
	for _, t := range p.pending {
		if !t.shown {
			p.view.add(&entry{kind: entrySystem, text: "dropped the queued turn: " + t.text})
		}
	}
	p.pending = nil
}

// queuedLines returns the queued turns' lines, wrapped to width w.
func (p *AgentPane) queuedLines(w int) []line {
	var out []line
	for _, t := range p.pending {
		if !t.shown {
			out = append(out, p.view.render(t.entry, w)...)
		}
	}
	return out
}
