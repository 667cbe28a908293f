package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kwsdev/kws/agent/skill"
)

// Commands a user types as a whole line, in an agent pane or as kws run's
// task, that kws answers itself without calling the model. They win over
// a skill of the same name.
const (
	// CommandCompact compacts the conversation now (see Agent.Compact).
	CommandCompact = "/compact"
	// CommandContext shows what the next prompt holds (see Agent.Context).
	CommandContext = "/context"
	// CommandHelp lists the commands and the skills (see Agent.Explain).
	CommandHelp = "/help"
	// CommandClear, CommandModel and CommandExit are Claude Code's; kws
	// answers what does that here (see Agent.Explain).
	CommandClear = "/clear"
	CommandModel = "/model"
	CommandExit  = "/exit"
	// CommandRewind lists the agent's turns with the files each changed,
	// and with a turn previews or rewinds the files, the conversation or
	// both to just before it (see app's rewind).
	CommandRewind = "/rewind"
)

// Builtins are the built-in commands with what each does, in the order
// /help lists them.
var Builtins = [][2]string{
	{CommandHelp, "list the commands and the skills"},
	{CommandContext, "show what the agent's next prompt holds, in tokens"},
	{CommandCompact, "compact the conversation now"},
	{CommandRewind, "list the turns and the files each changed; /rewind N [files|conversation|both] previews going back to before turn N, --yes does it"},
	{CommandModel, "say which model the agent talks to, and how to change it"},
	{CommandClear, "start afresh: how, in kws"},
	{CommandExit, "leave: how, in kws"},
}

// Commands are the /commands an agent with skills takes, each with what
// it does: the built-ins, then the skills a user may invoke.
func Commands(skills []skill.Skill) [][2]string {
	out := slices.Clone(Builtins)
	for _, s := range skills {
		if s.UserInvocable {
			out = append(out, [2]string{"/" + s.Name, s.Description})
		}
	}
	return out
}

// IsCommand returns the command line is, trimmed, and whether it is one.
// Only /rewind takes arguments; they come back with it.
func IsCommand(line string) (string, bool) {
	c := strings.TrimSpace(line)
	for _, b := range Builtins {
		if b[0] == c {
			return c, true
		}
	}
	if rest, ok := strings.CutPrefix(c, CommandRewind+" "); ok && !strings.Contains(rest, "\n") {
		return c, true
	}
	return "", false
}

// Explain answers the commands that only say something (/help, /model,
// /clear, /exit) for this agent.
func (a *Agent) Explain(command string) string {
	switch command {
	case CommandModel:
		return fmt.Sprintf("%s talks to %s (profile %s, a window of %d tokens). Change it with model = \"…\" in ~/.config/kws/config.toml, KWS_MODEL, or a role's model; a restart (Ctrl-r) takes it up.",
			a.cfg.Name, a.cfg.Model, a.cfg.Profile.ID, a.cfg.Profile.ContextWindow)
	case CommandClear:
		return "kws keeps every conversation: Ctrl-r restarts " + a.cfg.Name + " with a fresh session (it asks first; this one stays saved), and /compact shrinks this one instead."
	case CommandExit:
		return "Ctrl-b x closes this pane (its session stays saved); Ctrl-b q detaches, or ends the whole session; Ctrl-b d detaches."
	}
	var b strings.Builder
	b.WriteString("commands:\n")
	for _, c := range Builtins {
		fmt.Fprintf(&b, "  %-9s %s\n", c[0], c[1])
	}
	var skills []string
	for _, c := range Commands(a.cfg.Skills)[len(Builtins):] {
		skills = append(skills, fmt.Sprintf("  %-9s %s", c[0], c[1]))
	}
	if len(skills) == 0 {
		b.WriteString("no skills are loaded (~/.config/kws/skills, .kws/skills)\n")
	} else {
		b.WriteString("skills:\n" + strings.Join(skills, "\n") + "\n")
	}
	b.WriteString("Tab completes a command; a line starting with // is sent as text.")
	return b.String()
}
