package panes

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/swarm"
)

// deniedPrefix starts the tool result the agent records for a call the
// user denied; the rest is the reason.
const deniedPrefix = "permission denied: "

// replay shows the agent's conversation so far, as the pane would have
// shown it live: the messages of the resumed session, a line naming it,
// the later messages, then the latest turn's events. The events t covers
// are skipped when they arrive.
func (p *AgentPane) replay(t swarm.Transcript) {
	resumed := min(t.Resumed, len(t.Messages))
	p.replayMessages(t.Messages[:resumed])
	if resumed > 0 {
		p.view.add(&entry{kind: entrySystem, text: "— resumed session " + t.Session + " —"})
	}
	p.replayMessages(t.Messages[resumed:])
	for _, e := range t.Events {
		if e.Type == swarm.EvTurn && e.Agent == p.name {
			p.userTurn(e.Text)
			continue
		}
		p.OnEvent(e)
	}
	p.seen = t.Seq
}

// replayMessages adds recorded messages to the transcript through the
// entries their live events make: an assistant message is its streamed
// text and its tool calls, a tool message the result on its call's card.
// Answers to page faults are left out (the request shows in the text
// above them, and live they are not shown either).
func (p *AgentPane) replayMessages(msgs []provider.Message) {
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			p.cur = nil
			if m.Content != "" {
				p.onLoop(agent.Event{Type: agent.EvTextDelta, Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				p.onLoop(agent.Event{Type: agent.EvToolCall, Tool: tc.Name, CallID: tc.ID, Args: tc.Arguments})
			}
		case "tool":
			reason, denied := strings.CutPrefix(m.Content, deniedPrefix)
			if denied {
				p.onLoop(agent.Event{Type: agent.EvPermission, CallID: m.ToolCallID, Decision: "deny", Text: reason})
			}
			p.onLoop(agent.Event{Type: agent.EvToolResult, CallID: m.ToolCallID, Text: m.Content, IsError: denied})
		case "user":
			switch {
			case strings.HasPrefix(m.Content, agent.NoticePrefix):
				p.onLoop(agent.Event{Type: agent.EvNotice, Text: m.Content})
			case pageIn(m.Content):
			default:
				p.userTurn(m.Content)
			}
		}
	}
	p.cur = nil
}

// pageIn reports whether a user message is the answer to a page fault.
func pageIn(content string) bool {
	for _, tag := range []string{"<ctx_exact", "<ctx_results", "<ctx_error"} {
		if strings.HasPrefix(content, tag) {
			return true
		}
	}
	return false
}

// userTurn adds a user turn as sent or recorded: the text typed (or the
// marked message), with a note for each vault block that rode it.
func (p *AgentPane) userTurn(text string) {
	typed, blocks := splitTurn(text)
	for _, id := range blocks {
		p.view.add(&entry{kind: entrySystem, text: injectedNote(id)})
	}
	p.cur = nil
	p.view.add(&entry{kind: entryUser, text: typed})
}

// injectedNote is the line that says block id rides the next turn.
func injectedNote(id string) string { return id + " rides the next turn (exact block)" }

// exactHead is the first line of an exact block the swarm attached to a
// turn (diet.FormatExact), after the blank line that separates it.
var exactHead = regexp.MustCompile(`^\n\n<ctx_exact id="(ctx:[0-9a-f]+)" original_chars=(\d+)( escaped="true")?>\n`)

// exactEnd closes an exact block.
const exactEnd = "\n</ctx_exact>"

// splitTurn takes apart a recorded user turn: the <memory> hint the agent
// appended, then the exact blocks the swarm attached. It returns the
// text before them and the blocks' ids; text that does not end in whole
// blocks is returned as it is.
func splitTurn(text string) (string, []string) {
	if i := strings.LastIndex(text, "\n\n"+memory.RecallHeader); i >= 0 {
		text = text[:i]
	}
	for at := 0; ; at++ {
		i := strings.Index(text[at:], "\n\n<ctx_exact id=")
		if i < 0 {
			return text, nil
		}
		at += i
		if ids, ok := exactBlocks(text[at:]); ok {
			return text[:at], ids
		}
	}
}

// exactBlocks reads rest as a run of exact blocks to its end and returns
// their ids.
func exactBlocks(rest string) ([]string, bool) {
	var ids []string
	for rest != "" {
		m := exactHead.FindStringSubmatch(rest)
		if m == nil {
			return nil, false
		}
		rest = rest[len(m[0]):]
		n, err := strconv.Atoi(m[2])
		switch {
		case m[3] != "":
			// An escaped block's length is not its original's.
			n = strings.Index(rest, exactEnd)
		case err != nil || n > len(rest):
			return nil, false
		}
		if n < 0 || !strings.HasPrefix(rest[n:], exactEnd) {
			return nil, false
		}
		rest = rest[n+len(exactEnd):]
		ids = append(ids, m[1])
	}
	return ids, true
}
