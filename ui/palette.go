package ui

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/panes/pane"
)

// paletteCommand is a palette command that takes arguments; the palette
// also runs every action of the prefix table by name.
type paletteCommand struct {
	name string
	// usage spells the arguments ("NAME").
	usage string
	run   func(arg string)
	// complete returns the values argument i (from 0) may take, nil when
	// they cannot be listed.
	complete func(i int) []string
}

// paneKinds are the kinds show opens: the registered ones.
func (a *App) paneKinds() []pane.Kind {
	var out []pane.Kind
	for _, k := range a.cfg.Panes.Kinds() {
		out = append(out, k.Kind)
	}
	return out
}

// paletteCommands are the palette's commands with arguments, by name.
func (a *App) paletteCommands() []paletteCommand {
	only := func(values []string) func(int) []string {
		return func(i int) []string {
			if i == 0 {
				return values
			}
			return nil
		}
	}
	var layouts, kinds []string
	for _, p := range Presets {
		layouts = append(layouts, string(p))
	}
	for _, k := range a.paneKinds() {
		kinds = append(kinds, string(k))
	}
	cmds := []paletteCommand{
		{name: "ctx_get", usage: "ID", run: func(arg string) { a.openBlockOrTell(strings.TrimPrefix(strings.TrimSpace(arg), "id=")) }},
		{name: "select-layout", usage: "NAME", run: a.layoutCommand, complete: only(layouts)},
		{name: "select-pane", usage: "N|AGENT", run: a.selectPaneCommand, complete: func(i int) []string {
			if i == 0 {
				return a.agentNames()
			}
			return nil
		}},
		{name: "show", usage: "KIND", run: a.showCommand, complete: only(kinds)},
		{name: "new-window", usage: "[-n NAME] [KIND]", run: a.newWindowCommand, complete: func(int) []string { return kinds }},
		{name: "select-window", usage: "N|NAME", run: func(arg string) { a.windowCommand(arg, a.selectWindow) }, complete: only(a.windowNames())},
		{name: "rename-window", usage: "NAME", run: func(arg string) { a.tell(a.RenameWindow(-1, arg)) }},
		{name: "rename-session", usage: "NAME", run: a.renameSession},
		{name: "kill-window", usage: "[N|NAME]", run: func(arg string) { a.windowCommand(arg, a.killWindow) }, complete: only(a.windowNames())},
		{name: "spawn", usage: `[-w] N [ROLE] "task"`, run: a.spawnCommand, complete: func(i int) []string {
			if i == 1 {
				return a.cfg.Roles
			}
			return nil
		}},
	}
	if a.cfg.MCPStatus != nil {
		cmds = append(cmds, paletteCommand{name: "mcp", usage: "(no arguments: the MCP servers' state)", run: func(string) {
			a.textDialog(pageMCP, " MCP servers (Esc closes) ", a.cfg.MCPStatus())
		}})
	}
	return cmds
}

// commands are the palette's command names, sorted: every prefix action
// and, followed by a space, each command that takes arguments.
func (a *App) commands() []string {
	var out []string
	cmds := a.paletteCommands()
	for _, act := range a.prefix.Actions() {
		// A key's action that a command with arguments shares a name with
		// (C-b , asks what rename-window NAME is told) is that command.
		shared := slices.ContainsFunc(cmds, func(c paletteCommand) bool { return c.name == act.Name })
		if !isSelectWindow(act.Name) && !shared {
			out = append(out, act.Name)
		}
	}
	for _, c := range cmds {
		out = append(out, c.name+" ")
	}
	sort.Strings(out)
	return out
}

// commandNames are the names Command runs, sorted.
func (a *App) commandNames() []string {
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
	cmds := a.paletteCommands()
	i := slices.IndexFunc(cmds, func(c paletteCommand) bool { return c.name == words[0] })
	if i < 0 || cmds[i].complete == nil {
		return nil
	}
	before := strings.Join(words, " ") + " "
	for _, v := range cmds[i].complete(len(words) - 1) {
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
	for _, c := range a.paletteCommands() {
		if c.name == name {
			return c.name + " " + c.usage
		}
	}
	if slices.Contains(a.commands(), name) {
		return name + " takes no arguments"
	}
	return fmt.Sprintf("no command begins %q (Tab on nothing lists them)", name)
}

// Command runs one palette command: an action of the prefix table by
// name, or a command with arguments ("spawn 3 \"fix the test\"").
func (a *App) Command(cmd string) {
	name, arg, _ := strings.Cut(strings.TrimSpace(cmd), " ")
	if name == ".ctx_get" {
		name = "ctx_get"
	}
	for _, c := range a.paletteCommands() {
		if c.name == name {
			c.run(arg)
			return
		}
	}
	for _, act := range a.prefix.Actions() {
		if act.Name == name && act.Run != nil {
			act.Run()
			return
		}
	}
	a.Notify(fmt.Sprintf("no command %q (%s : then Tab lists them)", name, a.prefixName()))
}

// layoutCommand runs "select-layout NAME".
func (a *App) layoutCommand(arg string) {
	p, err := ParsePreset(strings.TrimSpace(arg))
	if err != nil {
		a.Notify(err.Error())
		return
	}
	a.selectLayout(p)
}

// showCommand runs "show KIND": it focuses the pane of the kind, opening
// one when there is none.
func (a *App) showCommand(arg string) {
	kind := pane.Kind(strings.TrimSpace(arg))
	if kinds := a.paneKinds(); !slices.Contains(kinds, kind) {
		a.Notify(fmt.Sprintf("show KIND: no kind %q (kinds: %v)", kind, kinds))
		return
	}
	_, _ = a.Show(kind)
}

// agentNames are the names of the agents whose panes are open, in pane
// order.
func (a *App) agentNames() []string {
	var out []string
	for _, lf := range a.layout.tree.leaves() {
		if p, ok := lf.pane.(pane.Persister); ok && lf.pane.Kind() == pane.KindAgent {
			if name := p.PersistState()[pane.StateAgent]; name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// selectPaneCommand runs "select-pane N|AGENT": it focuses pane number N,
// or the pane of the agent so named.
func (a *App) selectPaneCommand(arg string) {
	arg = strings.TrimSpace(arg)
	leaves := a.layout.tree.leaves()
	if n, err := strconv.Atoi(arg); err == nil && n >= 0 && n < len(leaves) {
		a.focusLeaf(leaves[n])
		return
	}
	for _, lf := range leaves {
		if p, ok := lf.pane.(pane.Persister); ok && lf.pane.Kind() == pane.KindAgent && p.PersistState()[pane.StateAgent] == arg {
			a.focusLeaf(lf)
			return
		}
	}
	a.Notify(fmt.Sprintf("select-pane: no pane %q (a number from 0 to %d, or an agent: %s)", arg, len(leaves)-1, strings.Join(a.agentNames(), ", ")))
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

// windowCommand runs do on the window arg names by number or name, or on
// the window shown when arg is empty.
func (a *App) windowCommand(arg string, do func(w *window)) {
	w := a.layout.window
	if arg = strings.TrimSpace(arg); arg != "" {
		var err error
		if w, err = a.windowNamed(arg); err != nil {
			a.Notify(err.Error())
			return
		}
	}
	do(w)
}

// newWindowCommand runs "new-window [-n NAME] [KIND]": a window with a
// pane of the kind, a shell by default.
func (a *App) newWindowCommand(arg string) {
	words := strings.Fields(arg)
	name := ""
	if len(words) >= 2 && words[0] == "-n" {
		name, words = words[1], words[2:]
	}
	kind := pane.KindShell
	if len(words) > 0 {
		kind = pane.Kind(words[0])
		if !slices.Contains(a.paneKinds(), kind) {
			a.Notify(fmt.Sprintf("new-window: no kind %q (kinds: %v)", kind, a.paneKinds()))
			return
		}
	}
	_, err := a.NewWindow(pane.Spec{Kind: kind}, name)
	a.tell(err)
}
