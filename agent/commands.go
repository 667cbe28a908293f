package agent

import "strings"

// Commands a user types as a whole line, in an agent pane or as kws run's
// task, that kws answers itself without calling the model. They win over
// a skill of the same name.
const (
	// CommandCompact compacts the conversation now (see Agent.Compact).
	CommandCompact = "/compact"
	// CommandContext shows what the next prompt holds (see Agent.Context).
	CommandContext = "/context"
)

// IsCommand returns the command line is, trimmed, and whether it is one.
func IsCommand(line string) (string, bool) {
	switch c := strings.TrimSpace(line); c {
	case CommandCompact, CommandContext:
		return c, true
	}
	return "", false
}
