package panes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/swarm"
)

// contextView is a /context answer of a dieted session.
func contextView() *agent.ContextView {
	return &agent.ContextView{Agent: "agent-1", Window: 128000, Compact: 105318, Trigger: 24000, Messages: 41, Total: 31215,
		Parts: []agent.ContextPart{
			{Name: agent.PartSystem, Tokens: 1931, Items: 1},
			{Name: agent.PartTools, Tokens: 4450, Items: 15},
			{Name: agent.PartPinned, Tokens: 612, Items: 1},
			{Name: agent.PartSummary},
			{Name: agent.PartMemory, Tokens: 51, Items: 3},
			{Name: agent.PartExact, Tokens: 22480, Items: 24},
			{Name: agent.PartRefs, Tokens: 1603, Items: 11},
			{Name: agent.PartSeenRefs, Tokens: 85, Items: 2},
		}}
}

// TestAgentPaneContextCard checks that /context typed in the pane goes to
// the agent as typed and that its answer is drawn as a card of the prompt's
// parts with bars fitted to the pane's width, and /compact's as one line.
func TestAgentPaneContextCard(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		p, fa, _ := newAgentPane(t)
		typeText(p, "/context")
		key(p, tcell.KeyEnter, 0, 0)
		if len(fa.sent) != 1 || fa.sent[0] != "/context" {
			t.Fatalf("sent %q", fa.sent)
		}
		p.OnEvent(swarm.Event{Type: swarm.EvTurn, Agent: "agent-1", Text: "/context"})
		p.OnEvent(swarm.Event{Type: swarm.EvCommand, Agent: "agent-1", Text: "/context", Context: contextView()})
		p.OnEvent(swarm.Event{Type: swarm.EvFinished, Agent: "agent-1"})
		p.OnEvent(swarm.Event{Type: swarm.EvTurn, Agent: "agent-1", Text: "/compact"})
		p.OnEvent(swarm.Event{Type: swarm.EvCommand, Agent: "agent-1", Text: "/compact",
			Compact: &agent.CompactReport{Before: 31215, After: 9870, Covered: 33, Compacted: true}})
		p.OnEvent(swarm.Event{Type: swarm.EvFinished, Agent: "agent-1"})
		text := screenText(render(t, p, size[0], size[1]))
		for _, want := range []string{"› /context", "next prompt of agent-1: 31,215 tokens in 41 messages", "tool schemas (15)",
			"history exact (24)", "seen refs (2)", "compacted: 31,215 → 9,870 tokens"} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: %q missing:\n%s", size, want, text)
			}
		}
		golden(t, fmt.Sprintf("agent_context_%dx%d", size[0], size[1]), text)
	}
}
