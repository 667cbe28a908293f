package ui

import (
	"fmt"
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
	pageTree    = "tree"
	pageOutput  = "output"
)

// helpText is the help screen, generated from the key tables: the prefix
// table first, then each open pane kind's table.
func (a *App) helpText() string {
	var b strings.Builder
	section := func(title string, t *keymap.Table) {
		fmt.Fprintf(&b, "%s\n", title)
		selects := false
		for _, act := range t.Actions() {
			if t == a.prefix && isSelectWindow(act.Name) {
				if !selects {
					fmt.Fprintf(&b, "  %-14s %-16s %s\n", "0…9", selectWindowAction+"N", "show window N")
				}
				selects = true
				continue
			}
			fmt.Fprintf(&b, "  %-14s %-16s %s\n", act.KeyNames(), act.Name, act.Desc)
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
	// A kind's tables: its pane's own first, then its modes'.
	kindTables := func(tables []*keymap.Table) {
		for i, t := range tables {
			if i == 0 {
				table(t, "In the "+t.Scope+" pane:")
			} else {
				table(t, "In "+t.Scope+" mode:")
			}
		}
	}
	paneTables := func(p pane.Pane) {
		tables := []*keymap.Table{p.Keys()}
		if m, ok := p.(pane.KeyTabler); ok {
			tables = m.KeyTables()
		}
		kindTables(tables)
	}
	if f := a.Focused(); f != nil {
		paneTables(f)
	}
	pk := a.global.Actions()[0].KeyNames()
	section("After the prefix "+pk+":", a.prefix)
	fmt.Fprintf(&b, "In the command palette (%s :), Tab completes and lists:\n", pk)
	b.WriteString("  every action above by name\n")
	for _, c := range commandTable {
		fmt.Fprintf(&b, "  %s %s\n", c.Name, c.Usage)
	}
	b.WriteByte('\n')
	if len(a.cfg.Commands) > 0 {
		b.WriteString("Typed in an agent pane's prompt (Tab completes them):\n")
		for _, c := range a.cfg.Commands {
			fmt.Fprintf(&b, "  %-14s %s\n", c[0], c[1])
		}
		b.WriteByte('\n')
	}
	for _, lf := range a.allLeaves() {
		paneTables(lf.pane)
	}
	// The kinds with no pane open yet, as a pane of theirs would have
	// their keys.
	for _, k := range a.cfg.Panes.Kinds() {
		if k.Keys == nil {
			continue
		}
		tables := k.Keys()
		for _, t := range tables {
			// A binding config.toml got wrong is reported when a pane
			// of the kind opens.
			_ = keymap.ApplyScope(a.cfg.Bindings, t)
		}
		kindTables(tables)
	}
	b.WriteString("Rebind any action in config.toml:  [keys]  \"prefix.split-right\" = \"|\"\n")
	b.WriteString("q or Esc closes this help.")
	return b.String()
}

// isSelectWindow reports whether name is one of the prefix table's
// select-window-0 … select-window-9 actions, which the help lists as one
// line.
func isSelectWindow(name string) bool {
	n, ok := strings.CutPrefix(name, selectWindowAction)
	if !ok || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// help shows the help screen.
func (a *App) help() { a.textDialog(pageHelp, " kws help ", a.helpText()) }

// textDialog shows text, scrollable, over the layout as page until Esc
// or q.
func (a *App) textDialog(page, title, text string) {
	th := a.cfg.Theme
	tv := tview.NewTextView().SetDynamicColors(false).SetScrollable(true).SetWrap(true).SetWordWrap(true)
	tv.SetText(text)
	tv.SetTextStyle(th.Dialog.TCell())
	tv.SetBackgroundColor(th.Dialog.Bg)
	tv.SetBorder(true).SetTitle(title).SetBorderStyle(th.BorderFocused.TCell()).SetTitleColor(th.TitleFocused.Fg)
	tv.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyRune && ev.Rune() == 'q' {
			a.closeDialog(page)
			return nil
		}
		return ev
	})
	a.pages.AddPage(page, tv, true, true)
	a.tv.SetFocus(tv)
}

// closeDialog removes a dialog page and gives the focus back to the pane.
func (a *App) closeDialog(page string) {
	a.pages.RemovePage(page)
	if f := a.layout.focused; f != nil {
		a.tv.SetFocus(f.pane)
	}
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
func (a *App) prompt(label string, done func(text string)) { a.promptText(label, "", done) }

// promptText is prompt with text already typed.
func (a *App) promptText(label, text string, done func(text string)) {
	th := a.cfg.Theme
	in := tview.NewInputField().SetLabel(label).SetText(text)
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

// OpenBlock shows the exact vault block id in the vault pane, opening one
// when there is none, and focuses it. A block the vault does not hold
// (Config.HasBlock) is an error and moves nothing: the caller keeps the
// focus and says why.
func (a *App) OpenBlock(id string) error {
	if a.cfg.HasBlock != nil {
		if err := a.cfg.HasBlock(id); err != nil {
			return fmt.Errorf("open %s: %w", id, err)
		}
	}
	p, err := a.Show(pane.KindVault)
	if err != nil {
		return err
	}
	if o, ok := p.(pane.BlockOpener); ok {
		return o.Open(id)
	}
	return nil
}
