package ui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/internal/shellwords"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
)

// Command is one command of kws's command language, as tmux's cmd_entry
// is. The palette runs it by name, a key bound to a command line
// (config.toml's [keys]) runs it, a program in a shell pane runs it with
// `kws NAME ARGS…` (the server hands it to the session), and the help
// lists it: one table for all of them.
type Command struct {
	Name string
	// Usage spells the flags and arguments ("[-t N] NAME"); Doc says what
	// it does.
	Usage, Doc string
	// Flags are its flags in getopt's spelling, as tmux's are: a letter,
	// followed by ':' when it takes a value ("t:hv").
	Flags string
	// Complete, when set, lists the values word i after the name may
	// take.
	Complete func(a *App, i int) []string
	// Run does it, on the UI goroutine; out is what it prints (the kws
	// command prints it, the palette shows it).
	Run func(a *App, c Call) (out string, err error)
}

// Call is a command line read against a command's flags.
type Call struct {
	// Flags maps each flag given to its value ("" for one that takes
	// none).
	Flags map[byte]string
	Args  []string
}

// Has reports whether flag f was given.
func (c Call) Has(f byte) bool {
	_, ok := c.Flags[f]
	return ok
}

// Int is flag f's value as a number, or def when it was not given.
func (c Call) Int(f byte, def int) (int, error) {
	v, ok := c.Flags[f]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("-%c %s: not a number", f, v)
	}
	return n, nil
}

// parse reads args against the command's flags: flags come first, each
// alone ("-t 2", "-t2") or booleans together ("-hp"); "--" or the first
// word that is not a flag ends them.
func (c Command) parse(args []string) (Call, error) {
	call := Call{Flags: map[byte]string{}}
	i := 0
	for ; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			i++
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			break
		}
		for j := 1; j < len(arg); j++ {
			f := arg[j]
			at := strings.IndexByte(c.Flags, f)
			if at < 0 || f == ':' {
				return Call{}, fmt.Errorf("%s: unknown flag -%c (usage: %s %s)", c.Name, f, c.Name, c.Usage)
			}
			if at+1 < len(c.Flags) && c.Flags[at+1] == ':' {
				v := arg[j+1:]
				if v == "" {
					if i+1 >= len(args) {
						return Call{}, fmt.Errorf("%s: -%c needs a value (usage: %s %s)", c.Name, f, c.Name, c.Usage)
					}
					i++
					v = args[i]
				}
				call.Flags[f] = v
				break
			}
			call.Flags[f] = ""
		}
	}
	call.Args = args[i:]
	return call, nil
}

// commandTable is every command. Commands that only run a prefix key's
// action take that action's name and are not listed here: Command runs
// those too.
var commandTable = []Command{
	{Name: "ctx_get", Usage: "ID", Doc: "open the exact vault block ID in the vault pane",
		Run: func(a *App, c Call) (string, error) {
			if len(c.Args) != 1 {
				return "", errors.New("ctx_get ID: give one block id")
			}
			return "", a.OpenBlock(strings.TrimPrefix(c.Args[0], "id="))
		}},
	{Name: "select-layout", Usage: "[-t TARGET] NAME", Flags: "t:", Doc: "arrange a window's panes (the one shown by default) as a preset layout", Complete: completeFirst(presetNames),
		Run: func(a *App, c Call) (string, error) {
			if len(c.Args) != 1 {
				return "", fmt.Errorf("select-layout NAME (layouts: %s)", strings.Join(presetNames(nil), ", "))
			}
			p, err := ParsePreset(c.Args[0])
			if err != nil {
				return "", err
			}
			w, err := a.windowTarget(c.Flags['t'])
			if err != nil {
				return "", err
			}
			if w != a.layout.window {
				w.tree.arrangePreset(p)
				w.preset = p
				return "", nil
			}
			a.selectLayout(p)
			return "", nil
		}},
	{Name: "select-pane", Usage: "[-T TITLE] [-t] TARGET|AGENT", Flags: "t:T:P:", Doc: "focus a pane (a number, %ID or another tmux target, or the pane of the agent so named); -T titles it instead",
		Complete: completeFirst((*App).agentNames),
		Run: func(a *App, c Call) (string, error) {
			target, ok := c.Flags['t']
			if !ok && len(c.Args) == 1 {
				target, ok = c.Args[0], true
			}
			title, titled := c.Flags['T']
			if titled || c.Has('P') {
				lf, err := a.paneTarget(target)
				if err == nil && titled {
					lf.spec.Title = termsafe.OneLine(title)
					a.changed()
				}
				return "", err // -P styles: kws draws its skin
			}
			if !ok || target == "" {
				return "", errors.New("select-pane -t TARGET: give a pane's number, its %ID or an agent's name")
			}
			if lf, err := a.paneTarget(target); err == nil {
				a.focusLeaf(lf)
				return "", nil
			}
			return "", a.selectPaneNamed(target)
		}},
	{Name: "split-window", Usage: "[-h|-v] [-d] [-P [-F FORMAT]] [-t TARGET] [-c DIR] [-l SIZE] [COMMAND]", Flags: "hvdPF:t:c:l:e:b",
		Doc: "split a pane (the focused one by default): -h side by side, -v (the default) one above the other; the new pane runs COMMAND, else a shell; -d keeps the focus, -P prints the new pane (FORMAT, e.g. '#{pane_id}')",
		Run: func(a *App, c Call) (string, error) {
			if c.Has('h') && c.Has('v') {
				return "", errors.New("split-window: -h or -v, not both")
			}
			d := TopBottom
			if c.Has('h') {
				d = LeftRight
			}
			lf, err := a.splitWindow(c.Flags['t'], d, splitSpec(c), c.Has('d'))
			if err != nil {
				return "", err
			}
			if size, ok := c.Flags['l']; ok {
				if err := a.resizeTo(lf, size, d == LeftRight); err != nil {
					return "", err
				}
			}
			if c.Has('P') {
				return a.printPane(lf, c.Flags['F']), nil
			}
			return "", nil
		}},
	{Name: "kill-pane", Usage: "[-t TARGET]", Flags: "t:", Doc: "close a pane (the focused one by default) without asking; the last pane closes its window",
		Run: func(a *App, c Call) (string, error) {
			lf, err := a.paneTarget(c.Flags['t'])
			if err == nil {
				a.closeLeaf(lf)
			}
			return "", err
		}},
	{Name: "respawn-pane", Usage: "-k [-t TARGET] [-c DIR] [COMMAND]", Flags: "kt:c:e:", Doc: "end what runs in a pane and run COMMAND there instead (a shell when none); -k is required, as in tmux, for a pane still running",
		Run: func(a *App, c Call) (string, error) {
			lf, err := a.paneTarget(c.Flags['t'])
			if err != nil {
				return "", err
			}
			if !c.Has('k') {
				return "", errors.New("respawn-pane: pane still active (give -k to end what runs there)")
			}
			if lf.pane.Kind() != pane.KindShell {
				return "", fmt.Errorf("respawn-pane: pane %%%d is a %s pane, not a shell", lf.spec.ID, lf.pane.Kind())
			}
			return "", a.respawn(lf, strings.Join(c.Args, " "), c.Flags['c'])
		}},
	{Name: "resize-pane", Usage: "[-t TARGET] [-x SIZE] [-y SIZE] [-Z]", Flags: "t:x:y:Z", Doc: "give a pane SIZE cells or SIZE% of the window across (-x) or down (-y); -Z zooms it",
		Run: func(a *App, c Call) (string, error) {
			lf, err := a.paneTarget(c.Flags['t'])
			if err != nil {
				return "", err
			}
			if c.Has('Z') {
				a.focusLeaf(lf)
				a.zoom()
			}
			for _, f := range []byte{'x', 'y'} {
				if v, ok := c.Flags[f]; ok {
					if err := a.resizeTo(lf, v, f == 'x'); err != nil {
						return "", err
					}
				}
			}
			return "", nil
		}},
	{Name: "set-option", Usage: "[-p|-w|-g] [-t TARGET] OPTION VALUE", Flags: "pwgsqout:", Doc: "accept tmux's styling options (borders, status), which kws draws in its skin; any other is refused by name",
		Run: func(a *App, c Call) (string, error) { return "", setOption(c) }},
	{Name: "has-session", Usage: "[-t NAME]", Flags: "t:", Doc: "succeed when the session is this one, or a window so named (new-session made it)",
		Run: func(a *App, c Call) (string, error) { return "", a.hasSession(c.Flags['t']) }},
	{Name: "new-session", Usage: "-d -s NAME [-c DIR] [COMMAND]", Flags: "ds:c:x:y:n:e:PF:", Doc: "from inside kws: open a window NAME running COMMAND (a shell by default), which has-session, kill-window (tmux's kill-session) and -t NAME then find",
		Run: func(a *App, c Call) (string, error) {
			name := c.Flags['s']
			if name == "" {
				return "", errors.New("new-session: give -s NAME")
			}
			if a.hasSession(name) == nil {
				return "", fmt.Errorf("duplicate session: %s", name)
			}
			return a.newWindowFor(c, name, true)
		}},
	{Name: "new-window", Usage: "[-d] [-n NAME] [-P [-F FORMAT]] [-c DIR] [KIND|COMMAND]", Flags: "dn:PF:c:t:e:",
		Doc:      "open a window with a pane of the kind, or a shell running COMMAND (a shell by default), and show it (-d: stay here)",
		Complete: func(a *App, _ int) []string { return a.kindNames() },
		Run:      func(a *App, c Call) (string, error) { return a.newWindowFor(c, c.Flags['n'], c.Has('d')) }},
	{Name: "select-window", Usage: "[-t] N|NAME", Flags: "t:", Doc: "show window N, or the window so named", Complete: completeFirst((*App).windowNames),
		Run: func(a *App, c Call) (string, error) {
			w, err := a.windowOfCall(c, false)
			if err == nil {
				a.selectWindow(w)
			}
			return "", err
		}},
	{Name: "rename-window", Usage: "[-t N] NAME", Flags: "t:", Doc: `name a window (the one shown by default); "" gives back its automatic name`,
		Run: func(a *App, c Call) (string, error) {
			if len(c.Args) != 1 {
				return "", errors.New("rename-window [-t N] NAME: give one name")
			}
			n, err := c.Int('t', -1)
			if err != nil {
				return "", err
			}
			return "", a.RenameWindow(n, c.Args[0])
		}},
	{Name: "kill-window", Usage: "[-t] [N|NAME]", Flags: "t:", Doc: "close a window (the one shown by default) and its panes, without asking",
		Complete: completeFirst((*App).windowNames),
		Run: func(a *App, c Call) (string, error) {
			w, err := a.windowOfCall(c, true)
			if err == nil {
				a.killWindow(w)
			}
			return "", err
		}},
	{Name: "rename-session", Usage: "NAME", Doc: "rename the session: kws attach -t and kws ls use the new name",
		Run: func(a *App, c Call) (string, error) {
			if len(c.Args) != 1 {
				return "", errors.New("rename-session NAME: give one name")
			}
			a.renameSession(c.Args[0])
			return "", nil
		}},
	{Name: "list-panes", Usage: "[-s|-a] [-t TARGET] [-F FORMAT]", Flags: "sat:F:", Doc: "list a window's panes (the one shown by default): number, title, size, id, the focused one marked; -s or -a every window's; -F prints FORMAT for each",
		Run: func(a *App, c Call) (string, error) {
			w, err := a.windowTarget(c.Flags['t'])
			if err != nil {
				return "", err
			}
			return a.listPanes(w, c.Has('s') || c.Has('a'), c.Flags['F']), nil
		}},
	{Name: "list-windows", Doc: "list the windows: number, name (* on the one shown, ‼ when a pane waits for you), panes",
		Run: func(a *App, c Call) (string, error) { return a.listWindows(), nil }},
	{Name: "send-keys", Usage: "[-l] [-t TARGET] KEY…", Flags: "lt:H", Doc: "send keys to a pane: a key name (Enter, C-c, M-x, Up, Escape) is that key, other words are typed; -l types every word",
		Run: func(a *App, c Call) (string, error) {
			if len(c.Args) == 0 {
				return "", errors.New("send-keys [-t TARGET] KEY…: give the keys")
			}
			return "", a.SendKeys(c.Flags['t'], c.Args, c.Has('l'))
		}},
	{Name: "capture-pane", Usage: "-p [-t TARGET]", Flags: "pt:eJNS:E:", Doc: "print the text a pane shows",
		Run: func(a *App, c Call) (string, error) {
			if !c.Has('p') {
				return "", errors.New("kws has no paste buffers for capture-pane to fill: give -p to print")
			}
			return a.CapturePane(c.Flags['t'])
		}},
	{Name: "display-message", Usage: "-p [-t TARGET] FORMAT", Flags: "pt:",
		Doc: "print FORMAT with #{session_name}, #{window_index}, #{window_id}, #{window_name}, #{pane_index}, #{pane_id}, #{pane_title}, #{pane_width}, #{pane_height}, #{pane_active}, #{window_width}, #{window_height} filled in",
		Run: func(a *App, c Call) (string, error) {
			if len(c.Args) != 1 {
				return "", errors.New("display-message -p FORMAT: give one format")
			}
			text, err := a.DisplayMessage(c.Flags['t'], c.Args[0])
			if err != nil {
				return "", err
			}
			if !c.Has('p') {
				a.Notify(text)
				return "", nil
			}
			return text + "\n", nil
		}},
	{Name: "show", Usage: "KIND", Doc: "focus the pane of the kind, opening one when there is none", Complete: func(a *App, i int) []string {
		if i == 0 {
			return a.kindNames()
		}
		return nil
	},
		Run: func(a *App, c Call) (string, error) {
			if len(c.Args) != 1 || !slices.Contains(a.paneKinds(), pane.Kind(c.Args[0])) {
				return "", fmt.Errorf("show KIND (kinds: %v)", a.paneKinds())
			}
			_, err := a.Show(pane.Kind(c.Args[0]))
			return "", err
		}},
	{Name: "spawn", Usage: `[-w] N [ROLE] "task"`, Flags: "w", Doc: "open N agents, each with the role and the task, tiled in the window (-w: in a new window; the rest go on in a new one when it is full)",
		Complete: func(a *App, i int) []string {
			if i == 1 {
				return a.cfg.Roles
			}
			return nil
		},
		Run: func(a *App, c Call) (string, error) { return "", a.spawn(c.Has('w'), c.Args) }},
	{Name: "mcp", Doc: "show the MCP servers' state",
		Run: func(a *App, c Call) (string, error) {
			if a.cfg.MCPStatus == nil {
				return "", errors.New("mcp: no MCP servers in this workstation")
			}
			return a.cfg.MCPStatus() + "\n", nil
		}},
}

// CommandInfo is a command as the kws command offers it: its name, usage,
// documentation and flags (Command's spelling).
type CommandInfo struct {
	Name, Usage, Doc, Flags string
}

// Commands are the command table's commands, in its order.
func Commands() []CommandInfo {
	var out []CommandInfo
	for _, c := range commandTable {
		out = append(out, CommandInfo{Name: c.Name, Usage: c.Usage, Doc: c.Doc, Flags: c.Flags})
	}
	return out
}

// completeFirst completes the first word after the name with values.
func completeFirst(values func(a *App) []string) func(a *App, i int) []string {
	return func(a *App, i int) []string {
		if i == 0 {
			return values(a)
		}
		return nil
	}
}

// presetNames are the preset layouts' names.
func presetNames(*App) []string {
	var out []string
	for _, p := range Presets {
		out = append(out, string(p))
	}
	return out
}

// kindNames are the kinds of pane, as strings.
func (a *App) kindNames() []string {
	var out []string
	for _, k := range a.paneKinds() {
		out = append(out, string(k))
	}
	return out
}

// lookupCommand finds a command of the table by name.
func lookupCommand(name string) (Command, bool) {
	i := slices.IndexFunc(commandTable, func(c Command) bool { return c.Name == name })
	if i < 0 {
		return Command{}, false
	}
	return commandTable[i], true
}

// Exec runs the command line args (the name, then its flags and
// arguments): a command of the table, or a prefix key's action by name.
// It returns what the command prints. Call it on the UI goroutine.
func (a *App) Exec(args []string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("no command")
	}
	name := args[0]
	if name == ".ctx_get" {
		name = "ctx_get"
	}
	if c, ok := lookupCommand(name); ok {
		call, err := c.parse(args[1:])
		if err != nil {
			return "", err
		}
		return c.Run(a, call)
	}
	for _, act := range a.prefix.Actions() {
		if act.Name == name && act.Run != nil {
			if len(args) > 1 {
				return "", fmt.Errorf("%s takes no arguments", name)
			}
			act.Run()
			return "", nil
		}
	}
	return "", fmt.Errorf("no command %q (%s : then Tab lists them)", name, a.prefixName())
}

// Command runs one command line as the palette and a key bound to a line
// do: the line is split into words as a shell does ("spawn 3 tester \"run
// the suite\""), an error is said in the status bar and what the command
// prints is shown in a dialog.
func (a *App) Command(line string) {
	out, err := a.RunLine(line)
	if err == nil && out != "" {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		a.textDialog(pageOutput, " "+name+" (Esc closes) ", strings.TrimRight(out, "\n"))
	}
	a.tell(err)
}

// RunLine runs a command line, split into words as a shell splits them,
// and returns what the command prints. Panes run the command language
// through it (an agent pane's /split-window). Call it on the UI goroutine.
func (a *App) RunLine(line string) (string, error) {
	words, err := splitWords(line)
	if err != nil {
		return "", err
	}
	return a.Exec(words)
}

// splitWords splits a command line into words as a shell does
// (shellwords.Split); an unclosed quote is an error.
func splitWords(line string) ([]string, error) {
	words, open := shellwords.Split(line)
	if open != 0 {
		return nil, fmt.Errorf("unclosed %c in %q", open, line)
	}
	if len(words) == 0 {
		return nil, errors.New("no command")
	}
	return words, nil
}
