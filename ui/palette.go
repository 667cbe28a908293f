package ui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

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

// paneKinds are the kinds show opens.
var paneKinds = []pane.Kind{pane.KindAgent, pane.KindShell, pane.KindVault, pane.KindStats, pane.KindMemory, pane.KindBoard}

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
	for _, k := range paneKinds {
		kinds = append(kinds, string(k))
	}
	return []paletteCommand{
		{name: "ctx_get", usage: "ID", run: func(arg string) { a.OpenBlock(strings.TrimPrefix(strings.TrimSpace(arg), "id=")) }},
		{name: "select-layout", usage: "NAME", run: a.layoutCommand, complete: only(layouts)},
		{name: "show", usage: "KIND", run: a.showCommand, complete: only(kinds)},
		{name: "spawn", usage: `N [ROLE] "task"`, run: a.spawnCommand, complete: func(i int) []string {
			if i == 1 {
				return a.cfg.Roles
			}
			return nil
		}},
	}
}

// commands are the palette's command names, sorted: every prefix action
// and, followed by a space, each command that takes arguments.
func (a *App) commands() []string {
	var out []string
	for _, act := range a.prefix.Actions() {
		if !isSelectPane(act.Name) {
			out = append(out, act.Name)
		}
	}
	for _, c := range a.paletteCommands() {
		out = append(out, c.name+" ")
	}
	sort.Strings(out)
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
	i := slices.IndexFunc(a.paletteCommands(), func(c paletteCommand) bool { return c.name == words[0] })
	if i < 0 || a.paletteCommands()[i].complete == nil {
		return nil
	}
	before := strings.Join(words, " ") + " "
	for _, v := range a.paletteCommands()[i].complete(len(words) - 1) {
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

// palette asks for a command by name. Tab completes the command or its
// argument, listing the candidates when there are several, and never
// closes the palette; Enter runs the command, Esc closes.
func (a *App) palette() {
	th := a.cfg.Theme
	in := tview.NewInputField().SetLabel(": ")
	in.SetFieldStyle(th.Dialog.TCell()).SetLabelStyle(th.HintKey.TCell())
	in.SetBackgroundColor(th.Dialog.Bg)
	in.SetAutocompleteStyles(th.Dialog.Bg, th.Dialog.TCell(), th.Selection.TCell())
	// listAll shows every command for an empty line once Tab asked.
	listAll := false
	in.SetAutocompleteFunc(func(text string) []string {
		if text == "" && !listAll {
			return nil
		}
		return slices.DeleteFunc(a.completions(text), func(c string) bool { return c == text })
	})
	in.SetAutocompletedFunc(func(text string, _, source int) bool {
		in.SetText(text)
		if source == tview.AutocompletedEnter && !strings.HasSuffix(text, " ") {
			a.closeDialog(pagePalette)
			a.Command(strings.TrimSpace(text))
		}
		return source != tview.AutocompletedNavigate
	})
	in.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		switch ev.Key() {
		case tcell.KeyTab:
			listAll = true
			a.complete(in)
			return nil
		case tcell.KeyBacktab:
			return nil
		case tcell.KeyEscape:
			// Esc closes the palette even while candidates are listed.
			a.closeDialog(pagePalette)
			return nil
		}
		return ev
	})
	in.SetDoneFunc(func(key tcell.Key) {
		text := strings.TrimSpace(in.GetText())
		a.closeDialog(pagePalette)
		if key == tcell.KeyEnter && text != "" {
			a.Command(text)
		}
	})
	bar := tview.NewFlex().SetDirection(tview.FlexRow).AddItem(nil, 0, 1, false).AddItem(in, 1, 0, true).AddItem(nil, 2, 0, false)
	a.pages.AddPage(pagePalette, bar, true, true)
	a.tv.SetFocus(in)
}

// complete is Tab in the palette: a single candidate replaces the text,
// several extend it by what they share and are listed, none is said.
func (a *App) complete(in *tview.InputField) {
	text := in.GetText()
	cands := a.completions(text)
	switch {
	case len(cands) == 0:
		a.Notify(a.noCompletion(text))
		return
	case len(cands) == 1:
		in.SetText(cands[0])
	default:
		if p := commonPrefix(cands); len(p) > len(text) {
			in.SetText(p)
		}
	}
	in.Autocomplete()
}

// commonPrefix returns the longest prefix every string of ss shares.
func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	for !utf8.ValidString(p) {
		p = p[:len(p)-1]
	}
	return p
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
	if !slices.Contains(paneKinds, kind) {
		a.Notify(fmt.Sprintf("show KIND: no kind %q (kinds: %v)", kind, paneKinds))
		return
	}
	_, _ = a.Show(kind)
}
