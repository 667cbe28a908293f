package swarm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent"
)

// Controller is a runner that answers the user's command lines (see
// agent.IsCommand) itself; *agent.Agent is one.
type Controller interface {
	Context() (agent.ContextView, error)
	Compact() (agent.CompactReport, error)
	Explain(command string) string
}

// Rewinder is a runner that rewinds its files or its conversation
// (/rewind); app's Agent is one. Rewind answers the command line and,
// when it forked the conversation, names the session to continue.
type Rewinder interface {
	Rewind(line string) (reply, fork string, err error)
}

// ErrNoCommands is wrapped by Send's error for a /context or /compact
// line to an agent whose runner cannot answer it.
var ErrNoCommands = errors.New("swarm: the agent does not answer commands")

// checkCommand refuses command for the member when its runner is not a
// Controller. A member still being built is given the benefit: its
// runner is checked again when the turn runs.
func (m *member) checkCommand(command string) error {
	m.mu.Lock()
	r := m.runner
	m.mu.Unlock()
	_, ok := r.(Controller)
	if strings.HasPrefix(command, agent.CommandRewind) {
		_, ok = r.(Rewinder)
	}
	if r != nil && !ok {
		return fmt.Errorf("%w: %s cannot answer %s", ErrNoCommands, m.name, command)
	}
	return nil
}

// command answers a /context or /compact turn, between the agent's turns
// (its own loop runs it, so it never races a turn), and publishes the
// answer as EvCommand.
func (m *member) command(t turn) error {
	if strings.HasPrefix(t.command, agent.CommandRewind) {
		return m.rewind(t)
	}
	c, ok := t.r.(Controller)
	if !ok {
		return fmt.Errorf("%w: %s cannot answer %s", ErrNoCommands, m.name, t.command)
	}
	e := Event{Type: EvCommand, Agent: m.name, Text: t.command}
	switch t.command {
	case agent.CommandContext:
		v, err := c.Context()
		if err != nil {
			return err
		}
		e.Context = &v
	case agent.CommandCompact:
		r, err := c.Compact()
		if err != nil {
			return err
		}
		e.Compact = &r
	default:
		e.Reply = c.Explain(t.command)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.publishLocked(e)
	return nil
}

// rewind answers a /rewind line, between the agent's turns, and publishes
// the answer as EvCommand, with the forked session when the conversation
// was rewound.
func (m *member) rewind(t turn) error {
	rw, ok := t.r.(Rewinder)
	if !ok {
		return fmt.Errorf("%w: %s cannot answer %s", ErrNoCommands, m.name, t.command)
	}
	reply, fork, err := rw.Rewind(t.command)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.publishLocked(Event{Type: EvCommand, Agent: m.name, Text: agent.CommandRewind, Reply: reply, Fork: fork})
	return nil
}
