package ui

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
)

// prefixTable is the table of keys pressed after the prefix (Ctrl-b). The
// keys that show or open a kind of pane come from the pane registry.
func (a *App) prefixTable() *keymap.Table {
	var kinds []keymap.Action
	for _, k := range a.cfg.Panes.Kinds() {
		if k.Key == "" {
			continue
		}
		open := func() { _, _ = a.Show(k.Kind) }
		if k.Fresh {
			open = func() { a.openNew(k.Kind) }
		}
		kinds = append(kinds, keymap.Bind(k.Action, k.Key, k.Help, true, open))
	}
	t := keymap.New("prefix",
		keymap.Bind("split-right", "%", "split the pane left/right", true, func() { a.splitFocused(LeftRight) }),
		keymap.Bind("split-down", `"`, "split the pane top/bottom", true, func() { a.splitFocused(TopBottom) }),
		keymap.Bind("next-pane", "o", "focus the next pane", true, func() { a.cycle(1) }),
		keymap.Bind("focus-left", "Left", "focus the pane to the left", false, func() { a.move(-1, 0) }),
		keymap.Bind("focus-right", "Right", "focus the pane to the right", false, func() { a.move(1, 0) }),
		keymap.Bind("focus-up", "Up", "focus the pane above", false, func() { a.move(0, -1) }),
		keymap.Bind("focus-down", "Down", "focus the pane below", false, func() { a.move(0, 1) }),
		keymap.Bind("next-layout", "Space", "arrange the panes as the next preset layout", true, a.nextLayout).Short("next layout"),
		keymap.Bind("zoom", "z", "zoom the pane (again to restore)", true, a.zoom),
		keymap.Bind("close", "x", "close the pane (asks first)", true, a.askClose),
		keymap.Bind("new-agent", "a", "new agent pane (asks for a role and a task)", true, a.newAgent),
		keymap.Bind("new-window", "c", "new window with a shell", true, a.newWindowKey),
		keymap.Bind("next-window", "n", "show the next window", true, func() { a.stepWindow(1) }).Short("next window"),
		keymap.Bind("previous-window", "p", "show the previous window", false, func() { a.stepWindow(-1) }),
		keymap.Bind("last-window", "l", "show the window shown before", false, a.lastWindow),
		keymap.Bind("choose-tree", "w s", "choose a window or pane from a tree", true, a.chooseTree).Short("windows"),
		keymap.Bind("rename-window", ",", "rename the window", false, a.askRename),
		keymap.Bind("kill-window", "&", "close the window and its panes (asks first)", false, a.askKillWindow),
		keymap.Bind("break-pane", "!", "move the pane into a window of its own", false, a.breakPane),
		keymap.Bind("display-panes", "q", "show the pane numbers; a number then focuses that pane", false, a.displayPanes),
		keymap.Bind("last-pane", ";", "focus the pane focused before", false, a.lastPane),
		keymap.Bind("rename-session", "$", "rename the session", false, a.askRenameSession),
	)
	for _, k := range kinds {
		t.Add(k)
	}
	for _, k := range []keymap.Action{
		keymap.Bind("copy-mode", "[", "copy mode in a shell pane (scrollback, search, to vault)", true, a.copyMode),
		keymap.Bind("to-vault", "y", "keep the shell screen in the vault (its id is shown)", true, a.toVault),
		keymap.Bind("paste-buffer", "]", "paste the text copied last into the pane", true, a.pasteBuffer),
		keymap.Bind("resize-left", "H Alt-Left", "move the pane's border left", false, func() { a.resize(LeftRight, -2) }),
		keymap.Bind("resize-right", "L Alt-Right", "move the pane's border right", false, func() { a.resize(LeftRight, 2) }),
		keymap.Bind("resize-up", "K Alt-Up", "move the pane's border up", false, func() { a.resize(TopBottom, -1) }),
		keymap.Bind("resize-down", "J Alt-Down", "move the pane's border down", false, func() { a.resize(TopBottom, 1) }),
		keymap.Bind("next-waiting", NextWaitingKey+" Alt-n", "focus the next pane waiting for you, in any window", true, a.nextWaiting),
		keymap.Bind("palette", ":", "command palette", true, a.palette),
		keymap.Bind("help", "?", "help: every key", true, a.help),
		keymap.Bind("detach", "d", "detach: the session and its agents keep running (kws attach)", true, a.detach),
		keymap.Bind("quit", "Q", "quit: detach or end the session (asks)", true, a.askQuit),
		keymap.Bind("send-prefix", "Ctrl-b", "send the prefix key itself to the pane", false, a.sendPrefix),
	} {
		t.Add(k)
	}
	for i, p := range Presets {
		t.Add(keymap.Bind("layout-"+strconv.Itoa(i+1), "Alt-"+strconv.Itoa(i+1), "arrange the panes "+string(p), false, func() { a.selectLayout(p) }))
	}
	for i := range 10 {
		n := i
		t.Add(keymap.Bind(selectWindowAction+strconv.Itoa(n), strconv.Itoa(n), "show window "+strconv.Itoa(n), false, func() {
			if err := a.SelectWindow(n); err != nil {
				a.Notify(err.Error())
			}
		}))
	}
	return t
}

// checkBindings validates config.toml's [keys]: the application's own
// tables are rebound here, the panes' scopes must exist. In the prefix and
// global tables an entry may also bind a key to a command line, as tmux's
// bind-key does: "prefix.T" = "spawn 3 tester \"run the suite\"".
func (a *App) checkBindings(b map[string]string) error {
	own := map[string]string{}
	commands := map[string]string{}
	for full, keys := range b {
		scope, name, _ := strings.Cut(full, ".")
		switch {
		case scope == a.prefix.Scope || scope == a.global.Scope:
			if a.isCommandBinding(scope, name) {
				commands[full] = keys
			} else {
				own[full] = keys
			}
		case !slices.Contains(a.cfg.Panes.Scopes(), scope):
			return fmt.Errorf("config.toml [keys] %q: no key table %q (tables: prefix, global, %s)", full, scope, strings.Join(a.cfg.Panes.Scopes(), ", "))
		}
	}
	if err := keymap.Apply(own, a.prefix, a.global); err != nil {
		return err
	}
	for _, full := range slices.Sorted(maps.Keys(commands)) {
		if err := a.bindCommand(full, commands[full]); err != nil {
			return err
		}
	}
	// Pressing the prefix twice sends it, whatever key it is.
	if _, set := own["prefix.send-prefix"]; !set {
		_ = a.prefix.Rebind("send-prefix", []keymap.Key{a.prefixKey()})
	}
	return nil
}

// isCommandBinding reports whether scope.name binds a key to a command
// line: name is no action of the table, and it spells a key.
func (a *App) isCommandBinding(scope, name string) bool {
	t := a.prefix
	if scope == a.global.Scope {
		t = a.global
	}
	if slices.ContainsFunc(t.Actions(), func(act keymap.Action) bool { return act.Name == name }) {
		return false
	}
	_, err := keymap.Parse(name)
	return err == nil
}

// bindCommand binds the key of full ("prefix.T") to the command line
// line, which must name a command.
func (a *App) bindCommand(full, line string) error {
	scope, name, _ := strings.Cut(full, ".")
	k, _ := keymap.Parse(name)
	cmd, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	if !slices.Contains(a.CommandNames(), cmd) {
		return fmt.Errorf("config.toml [keys] %q = %q: no command %q (commands: %s)", full, line, cmd, strings.Join(a.CommandNames(), ", "))
	}
	t := a.prefix
	if scope == a.global.Scope {
		t = a.global
	}
	t.BindKey(k, keymap.Action{Name: cmd, Desc: "runs: " + line, Visible: true, Run: func() { a.Command(line) }})
	return nil
}

// capture sees every key first: it dismisses the notice; the prefix key arms the prefix table, the
// next key runs its action; anything else goes on to the focused pane or
// the open dialog.
func (a *App) capture(ev *tcell.EventKey) *tcell.EventKey {
	defer a.keyDone()
	// A key dismisses the status bar's notice, as it does tmux's
	// message; a notice the key itself brings is shown.
	dismissed := a.dismissNotice()
	if ev.Key() == tcell.KeyCtrlC {
		// tview stops the application on a Ctrl-C it is handed back
		// unchanged; a copy goes on instead (a shell's interrupt, an
		// agent's cancel; a dialog ignores it). The prefix's q quits.
		ev = tcell.NewEventKey(ev.Key(), ev.Rune(), ev.Modifiers())
	}
	if a.modal() {
		return ev
	}
	if a.picking {
		a.picking = false
		if ev.Key() == tcell.KeyRune && ev.Rune() >= '0' && ev.Rune() <= '9' {
			a.selectPane(int(ev.Rune() - '0'))
		}
		return nil
	}
	if a.pending {
		a.pending = false
		if !a.prefix.Handle(ev) {
			a.Notify(fmt.Sprintf("no command on %s %s (%s ? lists them)", a.prefixName(), keymap.Of(ev), a.prefixName()))
		}
		return nil
	}
	if act, ok := a.global.Lookup(keymap.Of(ev)); ok && act.Name == "prefix" {
		a.pending = true
		return nil
	}
	// A key a shell pane's program takes shows nothing until the program
	// answers, whose output draws the next frame: the frame tview draws
	// for the key is skipped, so the echo is not drawn behind it.
	if p, ok := a.Focused().(pane.Passer); ok && !dismissed && p.PassesKey(ev) {
		a.skipFrame = true
	}
	return ev
}

// modal reports whether a dialog (help, palette, quit) is in front.
func (a *App) modal() bool {
	name, _ := a.pages.GetFrontPage()
	return name != "main"
}

// keyDone tells the headless driver one key was handled.
func (a *App) keyDone() {
	select {
	case a.handled <- struct{}{}:
	default:
	}
}

func (a *App) splitDir() Dir {
	if f := a.layout.focused; f != nil && f.h*2 > f.w {
		return TopBottom
	}
	return LeftRight
}

// splitFocused splits the focused pane with a new pane of the same kind
// (a shell for a shell, an agent for an agent), as tmux splits a shell.
func (a *App) splitFocused(d Dir) {
	if !a.roomToSplit(d) {
		return
	}
	kind := pane.KindShell
	if f := a.Focused(); f != nil && f.Kind() == pane.KindAgent {
		kind = pane.KindAgent
	}
	_ = a.Open(kind, d)
}

// nextWaiting focuses the next pane, after the focused one, that waits for
// the user, going on through the windows after this one.
func (a *App) nextWaiting() {
	leaves := a.allLeaves()
	start := slices.Index(leaves, a.layout.focused)
	for i := 1; i <= len(leaves); i++ {
		if lf := leaves[(start+i)%len(leaves)]; needsYou(lf.pane) {
			a.focusLeaf(lf)
			return
		}
	}
	a.Notify("no pane is waiting for you")
}

// Smallest pane a split may leave, in cells including the frame.
const minPaneW, minPaneH = 12, 5

// roomToSplit reports whether the focused pane can be split along d, and
// says so when it cannot, as tmux does.
func (a *App) roomToSplit(d Dir) bool {
	f := a.layout.focused
	if f == nil || f.w == 0 {
		return true
	}
	if d == LeftRight && f.w < 2*minPaneW || d == TopBottom && f.h < 2*minPaneH {
		a.Notify("no space for a new pane here (zoom, close or resize one first)")
		return false
	}
	return true
}

// openNew opens a pane of the kind beside the focused one when there is
// room.
func (a *App) openNew(kind pane.Kind) {
	if d := a.splitDir(); a.roomToSplit(d) {
		_ = a.Open(kind, d)
	}
}

func (a *App) cycle(step int) {
	leaves := a.layout.tree.leaves()
	if len(leaves) == 0 {
		return
	}
	i := a.layout.number(a.layout.focused)
	a.focusLeaf(leaves[(i+step+len(leaves))%len(leaves)])
}

func (a *App) move(dx, dy int) {
	if a.layout.tree.zoomed != nil {
		// As tmux does: unzoom, then move among the laid-out panes.
		a.layout.tree.zoomed = nil
		a.relayout()
		a.changed()
	}
	if f := a.layout.focused; f != nil {
		if n := a.layout.neighbour(f, dx, dy); n != nil {
			a.focusLeaf(n)
		}
	}
}

func (a *App) selectPane(n int) {
	if leaves := a.layout.tree.leaves(); n < len(leaves) {
		a.focusLeaf(leaves[n])
		return
	}
	a.Notify(fmt.Sprintf("no pane %d in this window", n))
}

// NextWaitingKey is the prefix key that focuses the next pane waiting for
// the user, unless config.toml rebinds it.
const NextWaitingKey = "N"

// selectWindowAction is the prefix actions' name before a window's number
// (select-window-3).
const selectWindowAction = "select-window-"

// displayPanes says each pane's number, which its frame shows, and takes
// the next key as the number of the pane to focus, as tmux's C-b q does.
func (a *App) displayPanes() {
	n := len(a.layout.tree.leaves())
	a.picking = true
	if n == 1 {
		a.Notify("pane 0 is the only pane here: press 0, or another key to go on")
		return
	}
	a.Notify(fmt.Sprintf("press a pane's number (0 to %d, on its frame)", n-1))
}

// lastPane focuses the pane focused before the focused one in its window,
// as tmux's C-b ; does.
func (a *App) lastPane() {
	var prev *leaf
	for _, lf := range a.layout.tree.leaves() {
		if lf != a.layout.focused && (prev == nil || lf.used > prev.used) {
			prev = lf
		}
	}
	if prev == nil {
		a.Notify("no other pane in this window")
		return
	}
	a.focusLeaf(prev)
}

func (a *App) zoom() {
	t := &a.layout.tree
	if t.zoomed != nil {
		t.zoomed = nil
	} else if f := a.layout.focused; f != nil && len(t.leaves()) > 1 {
		t.zoomed = f
	}
	a.changed()
}

func (a *App) resize(d Dir, delta int) {
	if f := a.layout.focused; f != nil && a.layout.tree.zoomed == nil {
		a.layout.tree.resize(f, d, delta)
		a.changed()
	}
}

func (a *App) copyMode() {
	if c, ok := a.Focused().(pane.CopyModer); ok {
		c.EnterCopyMode()
		return
	}
	a.Notify("copy mode is for shell panes")
}

func (a *App) toVault() {
	if k, ok := a.Focused().(pane.Keeper); ok {
		k.SendToVault()
		return
	}
	a.Notify("C-b y keeps a shell pane's screen; in the vault pane i gives a block to an agent")
}

// pasteBuffer pastes the paste buffer into the focused shell or agent
// pane.
func (a *App) pasteBuffer() {
	if p, ok := a.Focused().(pane.BufferPaster); ok {
		p.PasteBuffer()
		return
	}
	a.Notify(a.prefixName() + " ] pastes into a shell or agent pane")
}

// prefixKey is the prefix key; prefixName how it is shown ("C-b").
func (a *App) prefixKey() keymap.Key {
	if act := a.global.Actions()[0]; len(act.Keys) > 0 {
		return act.Keys[0]
	}
	return keymap.MustParse("Ctrl-b")
}

func (a *App) prefixName() string { return a.prefixKey().String() }

// actionKey is how the first key of the prefix action name is shown ("n"),
// or "" when the action has no key.
func (a *App) actionKey(name string) string {
	for _, act := range a.prefix.Actions() {
		if act.Name == name && len(act.Keys) > 0 {
			return act.Keys[0].String()
		}
	}
	return ""
}

// sendPrefix passes the prefix key itself to the focused pane.
func (a *App) sendPrefix() {
	f := a.Focused()
	if f == nil {
		return
	}
	k := a.prefixKey()
	var mod tcell.ModMask
	if k.Alt {
		mod = tcell.ModAlt
	}
	if k.Code >= tcell.KeyCtrlA && k.Code <= tcell.KeyCtrlZ {
		mod |= tcell.ModCtrl
	}
	if h := f.InputHandler(); h != nil {
		h(tcell.NewEventKey(k.Code, k.Rune, mod), func(p tview.Primitive) { a.tv.SetFocus(p) })
	}
}
