package ui

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
)

// Page names of the dialogs shown over the layout.
const (
	pageHelp    = "help"
	pagePalette = "palette"
	pageQuit    = "quit"
)

// helpText is the help screen, generated from the key tables: the prefix
// table first, then each open pane kind's table.
func (a *App) helpText() string {
	var b strings.Builder
	section := func(title string, t *keymap.Table) {
		fmt.Fprintf(&b, "%s\n", title)
		selects := false
		for _, act := range t.Actions() {
			if t == a.prefix && isSelectPane(act.Name) {
				if !selects {
					fmt.Fprintf(&b, "  %-14s %-14s %s\n", "0…9", "select-N", "focus pane N")
				}
				selects = true
				continue
			}
			fmt.Fprintf(&b, "  %-14s %-14s %s\n", act.KeyNames(), act.Name, act.Desc)
		}
		b.WriteByte('\n')
	}
	seen := map[string]bool{}
	table := func(t *keymap.Table, title string) {
		if seen[t.Scope] || len(t.Actions()) == 0 {
			return
		}
		seen[t.Scope] = true
		section(title, t)
	}
	paneTables := func(p pane.Pane) {
		tables := []*keymap.Table{p.Keys()}
		if m, ok := p.(pane.KeyTabler); ok {
			tables = m.KeyTables()
		}
		for i, t := range tables {
			if i == 0 {
				table(t, "In the "+t.Scope+" pane:")
			} else {
				table(t, "In "+t.Scope+" mode:")
			}
		}
	}
	if f := a.Focused(); f != nil {
		paneTables(f)
	}
	pk := a.global.Actions()[0].KeyNames()
	section("After the prefix "+pk+":", a.prefix)
	for _, lf := range a.layout.tree.leaves() {
		paneTables(lf.pane)
	}
	b.WriteString("Rebind any action in config.toml:  [keys]  \"prefix.split-right\" = \"|\"\n")
	b.WriteString("q or Esc closes this help.")
	return b.String()
}

// isSelectPane reports whether name is one of the prefix table's
// select-0 … select-9 actions, which the help lists as one line.
func isSelectPane(name string) bool {
	n, ok := strings.CutPrefix(name, "select-")
	if !ok || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// help shows the help screen.
func (a *App) help() {
	th := a.cfg.Theme
	tv := tview.NewTextView().SetDynamicColors(false).SetScrollable(true).SetWrap(false)
	tv.SetText(a.helpText())
	tv.SetTextStyle(th.Dialog.TCell())
	tv.SetBackgroundColor(th.Dialog.Bg)
	tv.SetBorder(true).SetTitle(" kws help ").SetBorderStyle(th.BorderFocused.TCell()).SetTitleColor(th.TitleFocused.Fg)
	tv.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyRune && ev.Rune() == 'q' {
			a.closeDialog(pageHelp)
			return nil
		}
		return ev
	})
	a.pages.AddPage(pageHelp, tv, true, true)
	a.tv.SetFocus(tv)
}

// closeDialog removes a dialog page and gives the focus back to the pane.
func (a *App) closeDialog(page string) {
	a.pages.RemovePage(page)
	if f := a.layout.focused; f != nil {
		a.tv.SetFocus(f.pane)
	}
}

// commands are the palette's commands: every prefix action by name, and
// "ctx_get ID" to open a vault block.
func (a *App) commands() []string {
	var out []string
	for _, act := range a.prefix.Actions() {
		if !isSelectPane(act.Name) {
			out = append(out, act.Name)
		}
	}
	out = append(out, "ctx_get ", "spawn ")
	sort.Strings(out)
	return out
}

// palette asks for a command by name.
func (a *App) palette() {
	th := a.cfg.Theme
	in := tview.NewInputField().SetLabel(": ")
	in.SetFieldStyle(th.Dialog.TCell()).SetLabelStyle(th.HintKey.TCell())
	in.SetBackgroundColor(th.Dialog.Bg)
	in.SetAutocompleteStyles(th.Dialog.Bg, th.Dialog.TCell(), th.Selection.TCell())
	in.SetAutocompleteFunc(func(text string) []string {
		var out []string
		for _, c := range a.commands() {
			if strings.HasPrefix(c, strings.TrimSpace(text)) && text != "" {
				out = append(out, c)
			}
		}
		return out
	})
	in.SetAutocompletedFunc(func(text string, _, source int) bool {
		in.SetText(text)
		if source == tview.AutocompletedEnter {
			a.closeDialog(pagePalette)
			a.Command(strings.TrimSpace(text))
		}
		return source != tview.AutocompletedNavigate
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

// roleAndTask splits "ROLE task…" when the first word names a role, and
// strips quotes around the task.
func (a *App) roleAndTask(text string) (role, task string) {
	text = strings.TrimSpace(text)
	first, rest, _ := strings.Cut(text, " ")
	for _, r := range a.cfg.Roles {
		if first == r {
			role, text = r, rest
			break
		}
	}
	return role, strings.Trim(strings.TrimSpace(text), `"'`)
}

// agentSpec names an agent pane with role.
func agentSpec(role string) pane.Spec {
	return pane.Spec{Kind: pane.KindAgent, Role: role}
}

// newAgent asks for a role and a task, then opens the agent pane beside the
// focused one; with no roles configured it opens a plain agent at once.
func (a *App) newAgent() {
	if len(a.cfg.Roles) == 0 {
		a.openNew(pane.KindAgent)
		return
	}
	a.prompt("new agent — role ("+strings.Join(a.cfg.Roles, ", ")+") and task, or Enter: ", func(text string) {
		role, task := a.roleAndTask(text)
		d := a.splitDir()
		if !a.roomToSplit(d) || a.open(agentSpec(role), d) != nil {
			return
		}
		if t, ok := a.Focused().(pane.Tasker); ok && task != "" {
			if err := t.SendTask(task); err != nil {
				a.Notify(err.Error())
			}
		}
	})
}

// prompt asks for one line of text at the bottom of the screen; done gets
// it on Enter (Esc cancels).
func (a *App) prompt(label string, done func(text string)) {
	th := a.cfg.Theme
	in := tview.NewInputField().SetLabel(label)
	in.SetFieldStyle(th.Dialog.TCell()).SetLabelStyle(th.HintKey.TCell())
	in.SetBackgroundColor(th.Dialog.Bg)
	in.SetDoneFunc(func(key tcell.Key) {
		text := in.GetText()
		a.closeDialog(pagePalette)
		if key == tcell.KeyEnter {
			done(text)
		}
	})
	bar := tview.NewFlex().SetDirection(tview.FlexRow).AddItem(nil, 0, 1, false).AddItem(in, 1, 0, true).AddItem(nil, 2, 0, false)
	a.pages.AddPage(pagePalette, bar, true, true)
	a.tv.SetFocus(in)
}

// spawnCommand runs `spawn N [ROLE] "task"`: N new agent panes, tiled,
// each with the role and given the task.
func (a *App) spawnCommand(arg string) {
	nText, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	n, err := strconv.Atoi(nText)
	if err != nil || n < 1 || n > 16 {
		a.Notify(`spawn N [role] "task": N is a number of agents from 1 to 16`)
		return
	}
	role, task := a.roleAndTask(rest)
	opened := 0
	for range n {
		p, err := a.openTiled(agentSpec(role))
		if err != nil {
			break
		}
		opened++
		if t, ok := p.(pane.Tasker); ok && task != "" {
			if err := t.SendTask(task); err != nil {
				a.Notify(err.Error())
			}
		}
	}
	if opened < n {
		a.Notify(fmt.Sprintf("opened %d of %d agent panes: no space for more (zoom or close panes)", opened, n))
	}
}

// OpenAgent opens a new agent pane of the role, tiled beside the others,
// and returns it; call it on the UI goroutine. It fails when there is no
// room left to split.
func (a *App) OpenAgent(role string) (pane.Pane, error) { return a.openTiled(agentSpec(role)) }

// openTiled opens a pane by splitting the largest pane along its longer
// side, so panes opened one after another tile the screen.
func (a *App) openTiled(s pane.Spec) (pane.Pane, error) {
	var big *leaf
	for _, lf := range a.layout.tree.leaves() {
		if big == nil || lf.w*lf.h > big.w*big.h {
			big = lf
		}
	}
	if big != nil {
		a.focusLeaf(big)
	}
	d := a.splitDir()
	if !a.roomToSplit(d) {
		return nil, errors.New("no space")
	}
	if err := a.open(s, d); err != nil {
		return nil, err
	}
	// Lay out now so the next split sees the new sizes.
	x, y, w, h := a.layout.GetRect()
	a.layout.arrange(a.layout.tree.root, x, y, w, h)
	return a.Focused(), nil
}

// Command runs one palette command: an action of the prefix table by name, or
// "ctx_get ID".
func (a *App) Command(cmd string) {
	name, arg, _ := strings.Cut(cmd, " ")
	switch name {
	case "ctx_get", ".ctx_get":
		a.OpenBlock(strings.TrimPrefix(strings.TrimSpace(arg), "id="))
		return
	case "spawn":
		a.spawnCommand(arg)
		return
	}
	for _, act := range a.prefix.Actions() {
		if act.Name == name && act.Run != nil {
			act.Run()
			return
		}
	}
	a.Notify(fmt.Sprintf("no command %q (C-b ? lists them)", name))
}

// OpenBlock shows the exact vault block id in the vault pane, opening one
// when there is none.
func (a *App) OpenBlock(id string) {
	p, err := a.Show(pane.KindVault)
	if err != nil {
		return
	}
	if o, ok := p.(pane.BlockOpener); ok {
		if err := o.Open(id); err != nil {
			a.Notify(err.Error())
		}
	}
}
