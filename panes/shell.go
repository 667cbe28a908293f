package panes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/termsafe"
)

// ShellPane is a live shell on a pseudo-terminal. Every key its table
// does not claim goes to the program, so full-screen programs such as vim
// get them all; the application's prefix key is taken by the layout before
// the pane sees it. The program's screen is drawn cell by cell, never
// through tview's colour tags, so nothing it prints can restyle the UI.
// Copy mode (EnterCopyMode) browses a frozen copy of the scrollback and
// the screen, searches it, selects text and keeps it in the vault.
type ShellPane struct {
	*tview.Box
	env      *pane.Env
	opts     pty.Options
	keep     func(kind string, text []byte) (id string, err error)
	sess     *pty.Terminal
	keys     *keymap.Table
	copyKeys *keymap.Table
	copy     *copyMode
	held     tcell.ButtonMask       // the mouse buttons down over the pane
	dir      string                 // the shell's working directory, last read
	job      atomic.Pointer[string] // the foreground job's name, "" at the prompt
	clip     atomic.Pointer[string] // text copied for the clipboard, sent by the next Draw
	// waiting is set when a program asked for the user (a bell, a
	// notification) while the pane was not focused; alert is the
	// notification's text. The UI goroutine sets them; Title reads alert.
	waiting atomic.Bool
	alert   atomic.Pointer[string]
	// pendingAlert is the alert handed to the UI goroutine and not yet
	// taken.
	pendingAlert atomic.Pointer[string]
	// cli is the state of the agent CLI in the foreground as its screen
	// showed it last (a cliState), read by the watch goroutine.
	cli atomic.Int32
}

// NewShellPane starts the shell described by opts and returns the pane
// showing it. keep stores text in the vault under a kind such as
// "shell:screen" and returns the block's id; it serves SendToVault and
// copy mode.
func NewShellPane(env *pane.Env, opts pty.Options, keep func(kind string, text []byte) (id string, err error)) (*ShellPane, error) {
	if opts.Colors == (pty.DefaultColors{}) {
		opts.Colors = pty.DefaultColors{Fg: ptyColor(env.Theme.Base.Fg), Bg: ptyColor(env.Theme.Base.Bg)}
	}
	p := &ShellPane{Box: tview.NewBox(), env: env, opts: opts, keep: keep}
	if env.Clipboard == pane.ClipboardOn && opts.Clipboard == nil {
		p.opts.Clipboard = p.programCopied
	}
	p.opts.Alert = p.alerted
	p.SetBackgroundColor(env.Theme.Base.Bg)
	p.keys = env.KeyTable("shell", shellActions(p)...)
	p.copyKeys = env.KeyTable("copy", copyActions(p)...)
	if err := p.start(); err != nil {
		return nil, err
	}
	return p, nil
}

// PrefixHints names the application's prefix actions the hints bar shows
// for a shell pane, whose own keys all go to the program.
func (p *ShellPane) PrefixHints() []string {
	return []string{"copy-mode", "paste-buffer", "to-vault"}
}

// start runs a new session with the pane's options and watches it.
func (p *ShellPane) start() error {
	s, err := pty.Start(p.opts)
	if err != nil {
		return fmt.Errorf("shell pane: %w", err)
	}
	p.sess = s
	// A restart after the shell exits is the user's: no notice.
	p.opts.Notice = ""
	go p.watch(s)
	return nil
}

// shellActions are the shell pane's own keys, run on p; every other key
// goes to the program.
func shellActions(p *ShellPane) []keymap.Action {
	return []keymap.Action{
		{Name: "copy-mode", Desc: "copy mode (prefix [)", Run: p.EnterCopyMode},
		{Name: "send-to-vault", Desc: "keep the screen in the vault", Run: p.SendToVault},
	}
}

// ShellInfo describes shell panes, whose copy mode has a key table of its own.
var ShellInfo = pane.Info{Kind: pane.KindShell, Scopes: []string{"shell", "copy"}, Key: "S", Action: "new-shell",
	Help: "new shell pane", Fresh: true,
	Keys: func() []*keymap.Table {
		return []*keymap.Table{keymap.New("shell", shellActions(nil)...), keymap.New("copy", copyActions(nil)...)}
	}}

// Kind returns "shell".
func (p *ShellPane) Kind() pane.Kind { return pane.KindShell }

// Title returns "shell: " and, made safe to show on one line, the name
// of the job in the terminal's foreground ("vim"), as tmux's automatic
// rename shows it; at the prompt the title the shell set, or the shell's
// name while it has set none.
func (p *ShellPane) Title() string {
	var name string
	if j := p.job.Load(); j != nil {
		name = *j
	}
	if name == "" {
		name = p.sess.Title()
	}
	if name == "" {
		name = p.opts.Shell
		if name == "" {
			name = os.Getenv("SHELL")
		}
		if name == "" {
			name = "bash"
		}
		name = filepath.Base(name)
	}
	title := "shell: " + termsafe.OneLine(name)
	switch a := p.alert.Load(); {
	case a != nil && *a != "":
		title += " · " + *a
	case cliState(p.cli.Load()) == cliWorking:
		title += " · working"
	}
	return title
}

// Keys returns the pane's key-action table: the copy-mode table while copy
// mode is on, else the shell table, whose actions have no keys unless the
// user binds some, so that every key reaches the program.
func (p *ShellPane) Keys() *keymap.Table {
	if p.copy != nil {
		return p.copyKeys
	}
	return p.keys
}

// KeyTables returns the shell's table and copy mode's, in or out of copy
// mode, so that the help lists both.
func (p *ShellPane) KeyTables() []*keymap.Table { return []*keymap.Table{p.keys, p.copyKeys} }

// Close ends the shell session.
func (p *ShellPane) Close() error { return p.sess.Close() }

// CloseWarning says when closing the pane would kill a running job.
func (p *ShellPane) CloseWarning() string {
	if p.sess.Job() == 0 {
		return ""
	}
	// The job's program, as the pane's title names it; else the title
	// the program set.
	name := p.sess.JobName()
	if name == "" {
		name = p.sess.Title()
	}
	if t := termsafe.OneLine(name); t != "" {
		return "The shell is running a job (" + t + ")."
	}
	return "The shell is running a job."
}

// exited reports whether the shell has exited.
func (p *ShellPane) exited() bool {
	select {
	case <-p.sess.Done():
		return true
	default:
		return false
	}
}

// restart replaces the exited session with a new one.
func (p *ShellPane) restart() {
	// The old shell has exited; closing only releases its pty.
	_ = p.sess.Close()
	if err := p.start(); err != nil {
		p.env.Tell(fmt.Sprintf("shell: restart failed: %v", err))
	}
}

// Draw paints the program's screen, or copy mode, inside the pane and
// keeps the session's size equal to the pane's inner rectangle.
func (p *ShellPane) Draw(screen tcell.Screen) {
	p.DrawForSubclass(screen, p)
	p.flushClipboard(screen)
	x, y, w, h := p.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	if cols, rows := p.sess.Size(); cols != w || rows != h {
		// A failed resize keeps the old size, drawn clipped; the next
		// frame tries again.
		_ = p.sess.Resize(w, h)
	}
	if p.copy != nil {
		p.drawCopy(screen, x, y, w, h)
		return
	}
	sc := p.sess.Snapshot()
	// The default colours are the skin's unless the program set its own
	// (OSC 10 and 11), as xterm draws them.
	base := p.env.Theme.Base
	base.Fg, base.Bg = tcellColor(sc.Colors.Fg, base.Fg), tcellColor(sc.Colors.Bg, base.Bg)
	for row := range h {
		drawRow(screen, x, y+row, w, sc.Line(row), base, nil)
	}
	if p.exited() {
		row := sc.Cursor.Y
		if pty.LineText(sc.Line(row)) != "" {
			row++
		}
		row = max(0, min(row, h-1))
		st := p.env.Theme.HintKey.TCell()
		fill(screen, x, y+row, w, 1, st)
		pane.Put(screen, x, y+row, w, p.exitText(), st)
		return
	}
	c := sc.Cursor
	if p.HasFocus() && c.Visible && c.X < w && c.Y < h {
		// The shape and colour the program asked for (DECSCUSR, OSC 12),
		// as tmux passes them on; the next frame's layout resets them.
		screen.SetCursorStyle(tcell.CursorStyle(c.Style), tcellColor(sc.Colors.Cursor, tcell.ColorReset))
		screen.ShowCursor(x+c.X, y+c.Y)
	}
}

// exitText is the line shown once the shell has exited.
func (p *ShellPane) exitText() string {
	status := "killed by a signal"
	if code := p.sess.ExitCode(); code >= 0 {
		status = fmt.Sprintf("status %d", code)
	}
	return fmt.Sprintf("[shell exited: %s — press Enter to restart or %s x to close]", status, p.env.PrefixName())
}

// InputHandler sends every key the pane's table does not claim to the
// program. In copy mode keys go to copy mode; after the shell has exited,
// Enter starts a new one.
func (p *ShellPane) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		switch {
		case p.copy != nil:
			p.copyInput(ev)
		case p.exited():
			if ev.Key() == tcell.KeyEnter {
				p.restart()
			}
		case p.keys.Handle(ev):
			// A key the user bound to one of the pane's actions.
		default:
			if k, ok := ptyKey(ev); ok {
				p.report(p.sess.SendKey(k))
			}
		}
	})
}

// PassesKey reports whether ev goes straight to the program: not in copy
// mode, not after the shell exited, not a key of the pane's own table.
func (p *ShellPane) PassesKey(ev *tcell.EventKey) bool {
	if p.copy != nil || p.exited() {
		return false
	}
	_, own := p.keys.Lookup(keymap.Of(ev))
	return !own
}

// PasteHandler sends pasted text to the program as a paste (bracketed when
// the program asked for it), or into copy mode's search line.
func (p *ShellPane) PasteHandler() func(text string, setFocus func(p tview.Primitive)) {
	return p.WrapPasteHandler(func(text string, _ func(tview.Primitive)) {
		switch {
		case p.copy != nil:
			if p.copy.typing {
				p.copy.input = append(p.copy.input, []rune(termsafe.OneLine(text))...)
			}
		case !p.exited():
			p.report(p.sess.Paste(text))
		}
	})
}

// report shows an input error in the status bar; input lost to a shell
// that has just exited is not worth one.
func (p *ShellPane) report(err error) {
	if err != nil && !errors.Is(err, pty.ErrClosed) && !p.exited() {
		p.env.Tell(fmt.Sprintf("shell: %v", err))
	}
}

// SendToVault keeps the visible screen in the vault as a "shell:screen"
// block, or in copy mode the selection as "shell:selection" (the screen
// shown when nothing is selected), and shows the block's id so an agent
// can be pointed at it.
func (p *ShellPane) SendToVault() {
	if p.copy != nil {
		p.store(p.copy.keepText())
		return
	}
	p.store("shell:screen", p.sess.Text())
}

// store keeps text in the vault under kind, tells the user the id, and
// reports whether it was kept.
func (p *ShellPane) store(kind, text string) bool {
	text = strings.TrimRight(text, "\n")
	switch {
	case strings.TrimSpace(text) == "":
		p.env.Tell("shell: nothing to keep")
		return false
	case p.keep == nil:
		p.env.Tell("shell: no vault to keep text in")
		return false
	}
	id, err := p.keep(kind, []byte(text))
	if err != nil {
		p.env.Tell(fmt.Sprintf("shell: keeping %s failed: %v", kind, err))
		return false
	}
	p.env.Tell(fmt.Sprintf("kept %s (%s, %d lines)", id, kind, strings.Count(text, "\n")+1))
	return true
}
