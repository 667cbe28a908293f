package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
)

// Mailbox carries agent_send's messages to the other agents of a swarm.
// Each agent gets one bound to its own name, the sender of its messages.
type Mailbox interface {
	// Send delivers text to the agent called to, or to every other agent
	// when to is "all", and returns the names of the agents it reached.
	Send(to, text string) (delivered []string, err error)
}

// maxMessageBytes bounds one message, which becomes another agent's turn.
const maxMessageBytes = 32 << 10

//go:embed agent_send.md
var agentSendDoc string

type agentSendTool struct{ spec }

type agentSendArgs struct {
	To   string `json:"to"`
	Text string `json:"text"`
}

func newAgentSend() Tool {
	return agentSendTool{spec{name: "agent_send", doc: agentSendDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "to": {"type": "string", "description": "the agent's name (e.g. agent-2), or \"all\" for every other agent"},
    "text": {"type": "string", "description": "the message"}
  },
  "required": ["to", "text"],
  "additionalProperties": false
}`}}
}

// Run delivers the message through the swarm's mailbox.
func (t agentSendTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a agentSendArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("agent_send: %v", err), nil
	}
	if env == nil || env.Mailbox == nil {
		return errResult("agent_send: there is no swarm: this agent works alone, so there is no other agent to message"), nil
	}
	a.To, a.Text = strings.TrimSpace(a.To), strings.TrimSpace(a.Text)
	switch {
	case a.To == "":
		return errResult(`agent_send: "to" is required: an agent's name such as agent-2, or "all"`), nil
	case a.Text == "":
		return errResult(`agent_send: "text" is required and must not be blank`), nil
	case len(a.Text) > maxMessageBytes:
		return errResult("agent_send: the message has %d bytes, more than %d; send a short message and cite ctx ids for the details", len(a.Text), maxMessageBytes), nil
	}
	delivered, err := env.Mailbox.Send(a.To, a.Text)
	if err != nil {
		return errResult("agent_send: %v", err), nil
	}
	return Result{Text: "delivered to " + strings.Join(delivered, ", ")}, nil
}
