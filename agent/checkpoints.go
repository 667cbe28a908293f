package agent

import (
	"github.com/kwsdev/kws/agent/checkpoint"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tools"
)

// Checkpointer records the workspace's files around the agent's tool
// calls so that a rewind can restore them (checkpoint.Tracker).
type Checkpointer interface {
	// BeginTurn records the files as they are before a user turn's first
	// change; turn counts the session's user turns from 1 and msgIndex
	// is the turn's message in the transcript.
	BeginTurn(turn, msgIndex int) error
	// AfterTool records what a tool call changed, if anything.
	AfterTool(turn int, callID, tool string) ([]checkpoint.Change, error)
}

// changesFiles reports whether a call of the tool may change the
// workspace's files: one that writes or runs commands, or a tool from
// outside kws, which may do anything. Reading tools and the vault's are
// not checkpointed.
func (a *Agent) changesFiles(name string) bool {
	t, ok := a.tool(name)
	if !ok {
		return false
	}
	switch t.Access() {
	case tools.Writes, tools.Executes:
		return true
	case tools.ReadOnly, tools.Network:
		return false
	}
	return true
}

// checkpointBefore records the files before the turn's first call that
// may change them, once a turn.
func (a *Agent) checkpointBefore(tc provider.ToolCall) {
	c := a.cfg.Checkpoints
	if c == nil || a.turnCheckpointed || !a.changesFiles(tc.Name) {
		return
	}
	a.turnCheckpointed, a.turnNumber = true, a.userTurns()
	if err := c.BeginTurn(a.turnNumber, a.turnStart); err != nil {
		a.emit(Event{Type: EvError, Error: "checkpoint: " + err.Error()})
	}
}

// checkpointAfter records what the call changed, whether it succeeded or
// not: a failed command may have written half its files.
func (a *Agent) checkpointAfter(tc provider.ToolCall) {
	c := a.cfg.Checkpoints
	if c == nil || !a.turnCheckpointed || !a.changesFiles(tc.Name) {
		return
	}
	if _, err := c.AfterTool(a.turnNumber, tc.ID, tc.Name); err != nil {
		a.emit(Event{Type: EvError, Error: "checkpoint: " + err.Error()})
	}
}
