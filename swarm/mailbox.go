package swarm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/tools"
)

// Everyone addresses a message to every agent but its sender.
const Everyone = "all"

// ErrNoRecipient is returned when a message to Everyone reaches no agent.
var ErrNoRecipient = errors.New("swarm: no other agent can take the message")

// Message queues text for the agent called to, or for every agent but the
// sender when to is Everyone. from is the sending agent's name, or "" for
// the user. The message becomes a user turn marked with its sender
// ("[message from agent-2] …", "[message from the user] …"), queued like
// any user turn: an idle agent starts on it, a busy one takes it after its
// current turn. Each recipient gets it once, with an EvMessage event.
func (s *Swarm) Message(from, to, text string) error {
	_, err := s.deliver(from, to, text)
	return err
}

// Mailbox returns the agent_send mailbox of the agent called name: what
// it sends comes from name. Pass it in the agent's Config.
func (s *Swarm) Mailbox(name string) tools.Mailbox { return mailbox{s: s, name: name} }

// mailbox is one agent's side of Message.
type mailbox struct {
	s    *Swarm
	name string
}

// Send delivers text from the mailbox's agent and returns the recipients.
func (b mailbox) Send(to, text string) ([]string, error) { return b.s.deliver(b.name, to, text) }

// deliver is Message; it returns the names of the agents that got text. A
// message to Everyone skips the agents that cannot take it (offline or
// stopped) and fails only when none could. A message to NAME@MEMBER goes
// to an agent of another server of the team (Config.Remote).
func (s *Swarm) deliver(from, to, text string) ([]string, error) {
	text, to = strings.TrimSpace(text), strings.TrimSpace(to)
	switch {
	case text == "":
		return nil, errors.New("swarm: the message is empty")
	case to == "":
		return nil, fmt.Errorf("swarm: a message needs a recipient: an agent's name or %q", Everyone)
	case from != "" && to == from:
		return nil, fmt.Errorf("swarm: %s cannot send a message to itself", from)
	}
	if agent, member, ok := strings.Cut(to, "@"); ok {
		if s.cfg.Remote == nil {
			return nil, fmt.Errorf("%w: %s (this kws server is in no team)", ErrNoAgent, to)
		}
		if err := s.cfg.Remote(from, agent, member, text); err != nil {
			return nil, err
		}
		return []string{to}, nil
	}
	turn := messageTurn(from, text)
	if to != Everyone {
		m, err := s.member(to)
		if err != nil {
			return nil, err
		}
		if err := m.message(from, turn); err != nil {
			return nil, err
		}
		return []string{to}, nil
	}
	s.mu.Lock()
	ms := make([]*member, 0, len(s.order))
	for _, n := range s.order {
		if n != from {
			ms = append(ms, s.members[n])
		}
	}
	s.mu.Unlock()
	var delivered []string
	for _, m := range ms {
		if m.message(from, turn) == nil {
			delivered = append(delivered, m.name)
		}
	}
	if len(delivered) == 0 {
		return nil, ErrNoRecipient
	}
	return delivered, nil
}

// message queues turn, a message from from, and publishes EvMessage.
func (m *member) message(from, turn string) error {
	return m.enqueue(turn, &Event{Type: EvMessage, Agent: m.name, From: from, Text: turn})
}

// messageTurn marks text with its sender, so the recipient knows the turn
// is not its user's own.
func messageTurn(from, text string) string {
	if from == "" {
		from = "the user"
	}
	return "[message from " + from + "] " + text
}
