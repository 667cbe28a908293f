package ui

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
)

// The tmux verbs a program in a shell pane runs through the kws command
// (kws list-panes, kws send-keys …): each works on the application as
// tmux's verb works on a window, with a pane named by a target (-t, see
// paneTarget) or, when none is given, the focused pane. Call them on the
// UI goroutine.

// PaneInfo is one pane as list-panes tells it.
type PaneInfo struct {
	// Window is the number of the pane's window, Index the pane's in it.
	Window, Index int
	Title         string
	Kind          pane.Kind
	Width, Height int
	Active        bool
	// Waiting is set while the pane waits for the user.
	Waiting bool
}

// Name is the pane's number, after its window's and a dot when that is
// not window 0 ("1.2").
func (p PaneInfo) Name() string {
	if p.Window == 0 {
		return strconv.Itoa(p.Index)
	}
	return strconv.Itoa(p.Window) + "." + strconv.Itoa(p.Index)
}

// Panes lists the panes of the window shown in number order, or with all
// every window's, window by window.
func (a *App) Panes(all bool) []PaneInfo {
	var out []PaneInfo
	for wi, w := range a.windows {
		if !all && w != a.layout.window {
			continue
		}
		for i, lf := range w.tree.leaves() {
			out = append(out, PaneInfo{Window: wi, Index: i, Title: lf.title(), Kind: lf.pane.Kind(), Width: lf.w, Height: lf.h,
				Active: lf == a.layout.focused, Waiting: needsYou(lf.pane)})
		}
	}
	return out
}

// target is pane n, or the focused pane when n < 0.
func (a *App) target(n int) (*leaf, error) {
	leaves := a.layout.tree.leaves()
	if n < 0 {
		if a.layout.focused == nil {
			return nil, fmt.Errorf("no pane is focused")
		}
		return a.layout.focused, nil
	}
	if n >= len(leaves) {
		return nil, fmt.Errorf("no pane %d (panes 0 to %d)", n, len(leaves)-1)
	}
	return leaves[n], nil
}

// CapturePane returns the text the pane target names shows inside its
// frame, one line per row, trailing spaces removed; a pane not on the
// screen (another is zoomed, or its window is not shown) shows nothing.
func (a *App) CapturePane(target string) (string, error) {
	lf, err := a.paneTarget(target)
	if err != nil {
		return "", err
	}
	s := a.layout.screen
	if s == nil || lf.w == 0 || a.windowOf(lf) != a.layout.window {
		return "", nil
	}
	x, y, w, h := lf.pane.GetRect()
	var b strings.Builder
	for row := y; row < y+h; row++ {
		var line strings.Builder
		for col := x; col < x+w; col++ {
			r, comb, _, width := s.GetContent(col, row)
			if width == 0 {
				continue // the second cell of a wide character
			}
			line.WriteRune(r)
			for _, c := range comb {
				line.WriteRune(c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// SendKeys sends keys to the pane target names as tmux's send-keys does:
// an argument that names a key ("Enter", "C-c", "M-x", "Up", "Escape",
// "Tab", "Space") is that key, any other is typed as text; with literal
// (-l) every argument is text.
func (a *App) SendKeys(target string, keys []string, literal bool) error {
	lf, err := a.paneTarget(target)
	if err != nil {
		return err
	}
	handle := lf.pane.InputHandler()
	if handle == nil {
		return fmt.Errorf("pane %%%d takes no keys", lf.spec.ID)
	}
	send := func(ev *tcell.EventKey) { handle(ev, func(p tview.Primitive) {}) }
	for _, arg := range keys {
		if k, ok := tmuxKey(arg); ok && !literal {
			send(keyEvent(k))
			continue
		}
		for _, r := range arg {
			send(tcell.NewEventKey(tcell.KeyRune, r, 0))
		}
	}
	return nil
}

// keyEvent is the event a terminal sends for k: Ctrl-A to Ctrl-Z with
// the Ctrl modifier (but Enter, Tab and Backspace, which share their
// codes, without), Alt as the Alt modifier.
func keyEvent(k keymap.Key) *tcell.EventKey {
	var mod tcell.ModMask
	if k.Alt {
		mod |= tcell.ModAlt
	}
	if k.Code >= tcell.KeyCtrlA && k.Code <= tcell.KeyCtrlZ && k.Code != tcell.KeyEnter && k.Code != tcell.KeyTab && k.Code != tcell.KeyBackspace {
		mod |= tcell.ModCtrl
	}
	return tcell.NewEventKey(k.Code, k.Rune, mod)
}

// tmuxKey reads a send-keys argument as a key name in tmux's spelling
// (C- for Ctrl, M- for Alt) or kws's; a single character is text.
func tmuxKey(arg string) (keymap.Key, bool) {
	if len([]rune(arg)) == 1 {
		return keymap.Key{}, false
	}
	name := arg
	for _, p := range [][2]string{{"C-", "Ctrl-"}, {"M-", "Alt-"}} {
		if rest, ok := strings.CutPrefix(name, p[0]); ok {
			name = p[1] + rest
		}
	}
	k, err := keymap.Parse(name)
	return k, err == nil
}

// formatVar matches one #{name} of a display-message format.
var formatVar = regexp.MustCompile(`#\{([a-z_]+)\}`)

// DisplayMessage expands the #{…} variables of format for the pane
// target names, as tmux's display-message -p does (see expand).
func (a *App) DisplayMessage(target, format string) (string, error) {
	lf, err := a.paneTarget(target)
	if err != nil {
		return "", err
	}
	return a.expand(lf, format), nil
}

// expand fills format's #{…} variables in for pane lf as tmux does:
// session_name, window_index, window_id (@N), window_name,
// window_width, window_height, pane_index, pane_id (%N), pane_title,
// pane_width, pane_height and pane_active; an unknown variable expands
// to nothing.
func (a *App) expand(lf *leaf, format string) string {
	session := ""
	if a.cfg.SessionName != nil {
		session = a.cfg.SessionName()
	}
	w := a.windowOf(lf)
	wi := a.windowIndex(w)
	_, _, ww, wh := a.layout.GetRect()
	active := "0"
	if lf == w.focused {
		active = "1"
	}
	vars := map[string]string{
		"session_name": session, "pane_index": strconv.Itoa(slices.Index(w.tree.leaves(), lf)), "pane_id": "%" + strconv.Itoa(lf.spec.ID),
		"window_index": strconv.Itoa(wi), "window_id": "@" + strconv.Itoa(wi), "window_name": w.displayName(),
		"pane_title": lf.title(), "pane_width": strconv.Itoa(lf.w), "pane_height": strconv.Itoa(lf.h), "pane_active": active,
		"window_width": strconv.Itoa(ww), "window_height": strconv.Itoa(wh),
	}
	return formatVar.ReplaceAllStringFunc(format, func(m string) string {
		return vars[formatVar.FindStringSubmatch(m)[1]]
	})
}

// listPanes is list-panes's output: each pane of w, or with all every
// window's, a line each: format (-F) expanded for it, else its number,
// title, size and id, the focused one marked.
func (a *App) listPanes(w *window, all bool, format string) string {
	var b strings.Builder
	for wi, win := range a.windows {
		if !all && win != w {
			continue
		}
		for i, lf := range win.tree.leaves() {
			if format != "" {
				b.WriteString(a.expand(lf, format) + "\n")
				continue
			}
			n := strconv.Itoa(i)
			if all {
				n = strconv.Itoa(wi) + "." + n
			}
			active := ""
			if lf == a.layout.focused {
				active = " (active)"
			}
			fmt.Fprintf(&b, "%s: %s [%dx%d] %%%d%s\n", n, lf.title(), lf.w, lf.h, lf.spec.ID, active)
		}
	}
	return b.String()
}

// listWindows is list-windows's output: each window's number, name with
// its marks (* shown, Z zoomed, ‼ a pane waits for the user) and panes.
func (a *App) listWindows() string {
	var b strings.Builder
	for _, win := range a.Windows() {
		flags, active := "", ""
		if win.Active {
			flags, active = "*", " (active)"
		}
		if win.Zoomed {
			flags += "Z"
		}
		if win.Waiting {
			flags += "‼"
		}
		fmt.Fprintf(&b, "%d: %s%s (%d panes)%s\n", win.Index, win.Name, flags, win.Panes, active)
	}
	return b.String()
}
