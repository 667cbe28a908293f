package ui

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/panes/pane"
)

// paneKinds are the kinds show opens: the registered ones.
func (a *App) paneKinds() []pane.Kind {
	var out []pane.Kind
	for _, k := range a.cfg.Panes.Kinds() {
		out = append(out, k.Kind)
	}
	return out
}

// commands are the palette's command names, sorted: every prefix action
// and, followed by a space, each command of the table (which takes
// arguments or flags).
func (a *App) commands() []string {
	var out []string
	for _, act := range a.prefix.Actions() {
		// A key's action that a command shares a name with (C-b , asks
		// what rename-window NAME is told) is that command.
		if _, shared := lookupCommand(act.Name); !isSelectWindow(act.Name) && !shared {
			out = append(out, act.Name)
		}
	}
	for _, c := range commandTable {
		out = append(out, c.Name+" ")
	}
	sort.Strings(out)
	return out
}

// CommandNames are the names of the commands RunLine and Command run,
// sorted: the command table's and the prefix keys' actions.
func (a *App) CommandNames() []string {
	var out []string
	for _, c := range a.commands() {
		out = append(out, strings.TrimSuffix(c, " "))
	}
	return out
}

// completions returns the palette lines that complete text: the command
// names it begins, or, after a command that takes arguments, that
// command with each value the word being typed begins.
func (a *App) completions(text string) []string {
	words := strings.Fields(text)
	typing := ""
	if len(words) > 0 && !strings.HasSuffix(text, " ") {
		typing, words = words[len(words)-1], words[:len(words)-1]
	}
	var out []string
	if len(words) == 0 {
		for _, c := range a.commands() {
			if strings.HasPrefix(c, typing) {
				out = append(out, c)
			}
		}
		return out
	}
	c, ok := lookupCommand(words[0])
	if !ok || c.Complete == nil {
		return nil
	}
	before := strings.Join(words, " ") + " "
	for _, v := range c.Complete(a, len(words)-1) {
		if strings.HasPrefix(v, typing) {
			out = append(out, before+v)
		}
	}
	return out
}

// noCompletion says why Tab found nothing for text: a command's usage,
// or that no command begins so.
func (a *App) noCompletion(text string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	if c, ok := lookupCommand(name); ok {
		return strings.TrimSpace(c.Name + " " + c.Usage)
	}
	if slices.Contains(a.commands(), name) {
		return name + " takes no arguments"
	}
	return fmt.Sprintf("no command begins %q (Tab on nothing lists them)", name)
}

// agentNames are the names of the agents whose panes are open, in pane
// order, window by window.
func (a *App) agentNames() []string {
	var out []string
	for _, lf := range a.allLeaves() {
		if p, ok := lf.pane.(pane.Persister); ok && lf.pane.Kind() == pane.KindAgent {
			if name := p.PersistState()[pane.StateAgent]; name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// selectPaneNamed focuses pane number target of the window, or the pane
// of the agent so named, in any window.
func (a *App) selectPaneNamed(target string) error {
	leaves := a.layout.tree.leaves()
	if n, err := strconv.Atoi(target); err == nil && n >= 0 && n < len(leaves) {
		a.focusLeaf(leaves[n])
		return nil
	}
	for _, lf := range a.allLeaves() {
		if p, ok := lf.pane.(pane.Persister); ok && lf.pane.Kind() == pane.KindAgent && p.PersistState()[pane.StateAgent] == target {
			a.focusLeaf(lf)
			return nil
		}
	}
	return fmt.Errorf("select-pane: no pane %q (a number from 0 to %d, or an agent: %s)", target, len(leaves)-1, strings.Join(a.agentNames(), ", "))
}

// tell says err in the status bar, when there is one.
func (a *App) tell(err error) {
	if err != nil {
		a.Notify(err.Error())
	}
}

// windowNames are the windows' numbers, for completion.
func (a *App) windowNames() []string {
	var out []string
	for i := range a.windows {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

// windowOfCall is the window a command's -t or first argument names, by
// number or name; with neither, the window shown when orShown, else an
// error.
func (a *App) windowOfCall(c Call, orShown bool) (*window, error) {
	target, ok := c.Flags['t']
	if !ok && len(c.Args) > 0 {
		target, ok = c.Args[0], true
	}
	if !ok {
		if orShown {
			return a.layout.window, nil
		}
		return nil, errors.New("give a window's number or name")
	}
	return a.windowNamed(target)
}
