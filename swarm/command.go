package swarm

import (
	"errors"
	"fmt"

	"github.com/kwsdev/kws/agent"
)

// Controller is a runner that answers the user's command lines (see
// agent.IsCommand) itself; *agent.Agent is one.
type Controller interface {
	Context() (agent.ContextView, error)
	Compact() (agent.CompactReport, error)
	Explain(command string) string
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
	if _, ok := r.(Controller); r != nil && !ok {
		return fmt.Errorf("%w: %s cannot answer %s", ErrNoCommands, m.name, command)
	}
	return nil
}

// command answers a /context or /compact turn, between the agent's turns
// (its own loop runs it, so it never races a turn), and publishes the
// answer as EvCommand.
func (m *member) command(t turn) error {
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
