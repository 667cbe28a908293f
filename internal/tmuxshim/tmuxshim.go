// Package tmuxshim reads the tmux command lines that agent launchers run
// (Claude Code's agent teams, claude-squad) and turns them into kws
// commands. kws puts a tmux on the PATH of its shell panes that is the
// kws program itself; run as tmux, it sends what this package makes of
// its arguments to the session the pane belongs to, so a launcher that
// drives tmux opens its teammates in kws panes.
//
// It links the standard library only: the thin client uses it.
package tmuxshim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Version is what tmux -V prints: launchers check that tmux is there and
// new enough.
const Version = "tmux 3.4 (kws)"

// aliases are tmux's short names of the commands kws takes.
var aliases = map[string]string{
	"splitw": "split-window", "selectp": "select-pane", "killp": "kill-pane", "respawnp": "respawn-pane",
	"resizep": "resize-pane", "lsp": "list-panes", "send": "send-keys", "capturep": "capture-pane",
	"display": "display-message", "has": "has-session", "new": "new-session", "neww": "new-window",
	"selectl": "select-layout", "set": "set-option", "setw": "set-window-option", "selectw": "select-window",
	"renamew": "rename-window", "killw": "kill-window", "lsw": "list-windows",
}

// commands are the tmux commands kws takes, each with whether it takes a
// target (-t) that defaults to the pane the command runs in.
var commands = map[string]bool{
	"split-window": true, "select-pane": true, "kill-pane": true, "respawn-pane": true, "resize-pane": true,
	"list-panes": true, "send-keys": true, "capture-pane": true, "display-message": true, "select-layout": true,
	"set-option": false, "has-session": false, "new-session": false, "new-window": false,
	"select-window": false, "rename-window": false, "kill-window": false, "list-windows": false,
}

// ErrUnknown is wrapped by Parse's error for a command kws does not take.
var ErrUnknown = errors.New("kws's tmux does not have this command")

// Plan is what a tmux command line asks of kws.
type Plan struct {
	// Version is set for tmux -V, which prints Version and does nothing
	// else.
	Version bool
	// Commands are kws command lines (a command's name, then its flags
	// and arguments), run in order.
	Commands [][]string
}

// Parse reads a tmux command line (without "tmux"): its global flags,
// then commands separated by ";" arguments, each by its name or alias.
// pane is $TMUX_PANE, the pane the command runs in: a command that works
// on a pane and names none (-t) works on that one, as in tmux.
func Parse(args []string, pane string) (Plan, error) {
	var p Plan
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-"; i++ {
		switch a := args[i]; a {
		case "-V":
			return Plan{Version: true}, nil
		case "-L", "-S", "-f", "-T":
			i++ // another server or config: there is one session here
		case "-u", "-2", "-v", "-N", "-D":
		default:
			if strings.HasPrefix(a, "-L") || strings.HasPrefix(a, "-S") || strings.HasPrefix(a, "-f") {
				continue
			}
			return Plan{}, fmt.Errorf("tmux %s: kws's tmux takes the flags -L, -S, -f, -u, -2 and -V", a)
		}
	}
	rest := args[i:]
	if len(rest) == 0 {
		return Plan{}, errors.New("tmux: give a command; kws's tmux has " + strings.Join(names(), ", "))
	}
	for len(rest) > 0 {
		end := slices.Index(rest, ";")
		if end < 0 {
			end = len(rest)
		}
		cmd, err := command(rest[:end], pane)
		if err != nil {
			return Plan{}, err
		}
		p.Commands = append(p.Commands, cmd)
		rest = rest[min(end+1, len(rest)):]
	}
	return p, nil
}

// command turns one tmux command into a kws command line.
func command(words []string, pane string) ([]string, error) {
	if len(words) == 0 {
		return nil, errors.New("tmux: an empty command between ;")
	}
	name := words[0]
	if full, ok := aliases[name]; ok {
		name = full
	}
	args := slices.Clone(words[1:])
	switch name {
	case "set-window-option":
		name, args = "set-option", append([]string{"-w"}, args...)
	case "kill-session":
		// A session a launcher made with new-session is a window of the
		// kws session; kws kill-session would end a whole kws session.
		name = "kill-window"
	}
	defaultTarget, ok := commands[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s (it has %s)", ErrUnknown, words[0], strings.Join(names(), ", "))
	}
	if defaultTarget && pane != "" && !hasTarget(args) {
		args = append([]string{"-t", pane}, args...)
	}
	return append([]string{name}, args...), nil
}

// hasTarget reports whether a command's words before "--" name a target
// with -t (a flag's value may come between, as in -F FORMAT -t %1).
func hasTarget(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "-t") {
			return true
		}
	}
	return false
}

// names are the commands kws's tmux takes, sorted.
func names() []string {
	out := make([]string, 0, len(commands))
	for n := range commands {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
