package panes

import (
	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/swarm"
)

// OnEvent adds one swarm event about this agent to the transcript. An
// event the transcript shown at construction covers is skipped.
func (p *AgentPane) OnEvent(e swarm.Event) {
	if e.Agent != p.name || e.Seq != 0 && e.Seq <= p.seen {
		return
	}
	switch e.Type {
	case swarm.EvAgent:
		p.onLoop(e.Loop)
	case swarm.EvAsk:
		if e.Request != nil {
			if p.dialog.add(*e.Request) {
				p.showAsk()
			}
		}
	case swarm.EvTurn:
		p.startTurn(e.Text)
	case swarm.EvMessage:
		// e.Info counts the message among the queued turns.
		info := e.Info
		info.Queued--
		p.queueTurn(e.Text, startsNow(info))
	case swarm.EvInjected:
		p.view.add(&entry{kind: entrySystem, text: injectedNote(e.Text)})
	case swarm.EvCommand:
		p.cur = nil
		switch {
		case e.Context != nil:
			p.view.add(&entry{kind: entryContext, view: e.Context})
		case e.Compact != nil:
			p.view.add(&entry{kind: entrySystem, text: e.Compact.String()})
		case e.Reply != "":
			p.view.add(&entry{kind: entrySystem, text: e.Reply})
		}
		if e.Fork != "" {
			p.continueOn(e.Fork)
		}
	case swarm.EvFinished:
		p.cur = nil
		if e.Err != "" && !p.view.last(entryError, e.Err) {
			p.view.add(&entry{kind: entryError, text: e.Err})
		}
	}
}

func (p *AgentPane) onLoop(ev agent.Event) {
	switch ev.Type {
	case agent.EvTextDelta:
		if p.cur == nil || ev.Restart {
			if p.cur != nil && ev.Restart {
				p.cur.text += "\n[the stream was cut; retrying]\n"
			}
			if p.cur == nil {
				p.cur = &entry{kind: entryAssistant}
				p.view.add(p.cur)
			}
		}
		p.cur.text += ev.Text
		p.cur.rendered = nil
	case agent.EvToolCall:
		p.cur = nil
		card := &entry{kind: entryTool, tool: ev.Tool, callID: ev.CallID, args: ev.Args, expanded: p.view.expanded}
		p.cards[ev.CallID] = card
		p.view.add(card)
	case agent.EvToolResult:
		if c := p.cards[ev.CallID]; c != nil {
			c.result, c.isErr, c.done, c.preview, c.rendered = ev.Text, ev.IsError, true, ev.Preview, nil
			delete(p.cards, ev.CallID)
		}
	case agent.EvPermission:
		// An agent runs its tools one at a time, so this decision ends
		// the request its dialog shows, whoever answered it.
		p.dialog.drop()
		if ev.Decision == "deny" {
			if c := p.cards[ev.CallID]; c != nil {
				c.denied, c.rendered = ev.Text, nil
			}
		}
	case agent.EvPageFault:
		if f := ev.Fault; f != nil {
			text := "paged in " + f.ID
			if f.Op == "search" {
				text = "searched the vault: " + f.Query
			}
			if f.Reason != "" {
				text += " (" + f.Reason + ")"
			}
			p.view.add(&entry{kind: entrySystem, text: text})
		}
	case agent.EvCompaction:
		if c := ev.Compaction; c != nil {
			p.view.add(&entry{kind: entrySystem, text: c.String()})
		}
	case agent.EvNotice, agent.EvRetry, agent.EvHook:
		p.view.add(&entry{kind: entrySystem, text: ev.Text})
	case agent.EvJobs:
		p.onJobs(ev.Jobs)
	case agent.EvToolRef:
		for i := len(p.view.entries) - 1; i >= 0; i-- {
			if e := p.view.entries[i]; e.kind == entryTool && e.callID == ev.CallID {
				e.vaultRef, e.rendered = ev.Text, nil
				break
			}
		}
	case agent.EvError:
		p.view.add(&entry{kind: entryError, text: ev.Error})
	}
}
