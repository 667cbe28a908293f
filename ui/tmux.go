package ui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/panes/pane"
)

// The verbs below give the command language tmux's meaning for what agent
// launchers send (Claude Code's agent teams, claude-squad): panes named
// by a target (-t) that may be in any window, split-window running a
// command and printing the new pane's id, respawn-pane, kill-pane, pane
// titles. The tmux command in a shell pane (the kws shim) sends them.

// paneTarget is the pane a -t names, as tmux reads a target pane: "" the
// focused pane; "%N" the pane of id N, in any window; "N" pane N of the
// window shown; "W.N", ":W.N" or "SESSION:W.N" pane N of window W;
// "SESSION:W", ":W", "SESSION:" or "SESSION" the focused pane of window W
// (or of the window shown). W is a window's number or name, and a
// leading "=" (tmux's exact match) is ignored.
func (a *App) paneTarget(t string) (*leaf, error) {
	t = strings.TrimPrefix(t, "=")
	switch {
	case t == "":
		return a.target(-1)
	case strings.HasPrefix(t, "%"):
		id, err := strconv.Atoi(t[1:])
		if err == nil {
			for _, lf := range a.allLeaves() {
				if lf.spec.ID == id {
					return lf, nil
				}
			}
		}
		return nil, fmt.Errorf("can't find pane: %s", t)
	}
	if n, err := strconv.Atoi(t); err == nil {
		return a.target(n)
	}
	session, rest, hasColon := strings.Cut(t, ":")
	if !hasColon {
		if !a.isSession(session) {
			if w, err := a.windowNamed(session); err == nil {
				return focusedOf(w), nil
			}
			return nil, fmt.Errorf("can't find pane: %s", t)
		}
	} else if session != "" && !a.isSession(session) {
		return nil, fmt.Errorf("can't find session: %s", session)
	}
	win, paneN, hasDot := strings.Cut(rest, ".")
	w := a.layout.window
	if win != "" {
		var err error
		if w, err = a.windowNamed(win); err != nil {
			return nil, err
		}
	}
	if !hasDot {
		return focusedOf(w), nil
	}
	n, err := strconv.Atoi(paneN)
	leaves := w.tree.leaves()
	if err != nil || n < 0 || n >= len(leaves) {
		return nil, fmt.Errorf("can't find pane: %s", t)
	}
	return leaves[n], nil
}

// focusedOf is w's focused pane, else its first.
func focusedOf(w *window) *leaf {
	if w.focused != nil {
		return w.focused
	}
	return w.tree.leaves()[0]
}

// isSession reports whether name is this session's name.
func (a *App) isSession(name string) bool {
	return a.cfg.SessionName != nil && a.cfg.SessionName() == name
}

// windowTarget is the window a -t names: one of a pane target's forms,
// the window holding that pane.
func (a *App) windowTarget(t string) (*window, error) {
	if t == "" {
		return a.layout.window, nil
	}
	lf, err := a.paneTarget(t)
	if err != nil {
		return nil, err
	}
	return a.windowOf(lf), nil
}

// splitSpec reads what split-window, new-window and new-session give the
// new pane: the command to run (the arguments, joined as tmux joins
// them) and its directory (-c); without a command it is a shell.
func splitSpec(c Call) pane.Spec {
	return pane.Spec{Kind: pane.KindShell, Command: strings.Join(c.Args, " "), Dir: c.Flags['c']}
}

// splitWindow splits the pane target names for a pane built from s, in
// direction d; detached keeps the focus where it is. It returns the new
// leaf.
func (a *App) splitWindow(target string, d Dir, s pane.Spec, detached bool) (*leaf, error) {
	at, err := a.paneTarget(target)
	if err != nil {
		return nil, err
	}
	if d == LeftRight && at.w > 0 && at.w < 2*minPaneW || d == TopBottom && at.h > 0 && at.h < 2*minPaneH {
		return nil, errors.New("no space for new pane")
	}
	w := a.windowOf(at)
	p, s, err := a.build(s)
	if err != nil {
		return nil, fmt.Errorf("cannot open a %s pane: %w", s, err)
	}
	lf := w.tree.split(at, d, p)
	lf.spec = s
	w.tree.zoomed = nil
	w.preset = ""
	if detached {
		a.relayout()
		a.changed()
	} else {
		a.focusLeaf(lf)
	}
	return lf, nil
}

// printPane is what -P prints of the pane: format expanded for it, by
// default tmux's "#{session_name}:#{window_index}.#{pane_index}".
func (a *App) printPane(lf *leaf, format string) string {
	if format == "" {
		format = "#{session_name}:#{window_index}.#{pane_index}"
	}
	return a.expand(lf, format) + "\n"
}

// closeLeaf closes lf's pane and takes it out of its window, as tmux's
// kill-pane does; the last pane of a window closes the window.
func (a *App) closeLeaf(lf *leaf) {
	w := a.windowOf(lf)
	if w == a.layout.window && lf == a.layout.focused {
		a.close()
		return
	}
	_ = lf.pane.Close()
	if a.lastOf[lf.pane.Kind()] == lf.pane {
		delete(a.lastOf, lf.pane.Kind())
	}
	w.tree.remove(lf)
	if len(w.tree.leaves()) == 0 {
		w.focused = nil
		a.dropWindow(w)
		return
	}
	if w.focused == lf {
		w.focused = w.tree.leaves()[0]
	}
	a.relayout()
	a.changed()
}

// respawn replaces lf's program, as tmux's respawn-pane -k does: its pane
// closes (ending what runs there) and a new one, with the same id, runs
// command (the shell when empty) in its place, in dir when one is given.
func (a *App) respawn(lf *leaf, command, dir string) error {
	s := lf.spec
	s.State, s.Command, s.Dir = nil, command, dir
	p, s, err := a.build(s)
	if err != nil {
		return fmt.Errorf("respawn-pane: %w", err)
	}
	old := lf.pane
	_ = old.Close()
	if a.lastOf[old.Kind()] == old {
		delete(a.lastOf, old.Kind())
	}
	lf.pane, lf.spec = p, s
	if lf == a.layout.focused {
		a.focusLeaf(lf)
	} else {
		a.relayout()
		a.changed()
	}
	return nil
}

// resizeTo sets lf's share of its split, as tmux's resize-pane -x or -y
// does: size is cells ("40") or a percentage of the window ("30%"); x
// says which way. A pane that has no neighbour that way keeps its size.
func (a *App) resizeTo(lf *leaf, size string, x bool) error {
	w := a.windowOf(lf)
	d := LeftRight
	if !x {
		d = TopBottom
	}
	n := lf.node
	for n.parent != nil && n.parent.dir != d {
		n = n.parent
	}
	parent := n.parent
	if parent == nil {
		return nil
	}
	var share float64
	if pct, ok := strings.CutSuffix(size, "%"); ok {
		v, err := strconv.Atoi(pct)
		if err != nil || v <= 0 || v >= 100 {
			return fmt.Errorf("resize-pane: bad size %q", size)
		}
		share = float64(v) / 100
	} else {
		cells, err := strconv.Atoi(size)
		_, _, total, wh := a.layout.GetRect()
		if !x {
			total = wh
		}
		if err != nil || cells <= 0 || total <= 0 {
			return fmt.Errorf("resize-pane: bad size %q", size)
		}
		share = min(0.95, float64(cells)/float64(total))
	}
	i := slices.Index(parent.children, n)
	total := 0.0
	for _, wt := range parent.weights {
		total += wt
	}
	// The pane takes its share of the split; the others keep theirs
	// among themselves in what is left.
	rest := total - parent.weights[i]
	for j := range parent.weights {
		if j == i {
			parent.weights[j] = share * total
		} else if rest > 0 {
			parent.weights[j] = parent.weights[j] / rest * (1 - share) * total
		}
	}
	w.preset = ""
	a.relayout()
	a.changed()
	return nil
}

// styleOptions are the tmux options that only style panes and borders,
// which set-option accepts and kws draws in its own skin.
var styleOptions = []string{"pane-border-style", "pane-active-border-style", "pane-border-format",
	"pane-border-status", "pane-border-lines", "window-style", "window-active-style", "status-style",
	"mouse", "remain-on-exit", "allow-rename", "automatic-rename", "history-limit"}

// setOption is tmux's set-option for options kws has no use for: those
// that style (kws draws its skin) are accepted and change nothing, any
// other is refused by name.
func setOption(c Call) error {
	if len(c.Args) == 0 {
		return errors.New("set-option OPTION [VALUE]: give an option")
	}
	if slices.Contains(styleOptions, c.Args[0]) {
		return nil
	}
	return fmt.Errorf("set-option %s: kws has no such option (it takes only %s, which its skin draws)", c.Args[0], strings.Join(styleOptions, ", "))
}

// hasSession is tmux's has-session: the session exists when it is this
// one or a window so named (new-session opens a window).
func (a *App) hasSession(t string) error {
	t = strings.TrimPrefix(t, "=")
	if t == "" || a.isSession(t) {
		return nil
	}
	session, _, _ := strings.Cut(t, ":")
	for _, w := range a.windows {
		if w.displayName() == session {
			return nil
		}
	}
	return fmt.Errorf("can't find session: %s", t)
}

// newWindowFor opens the window new-window and new-session ask for: a
// pane of the kind their argument names, else a shell running the
// arguments as a command, in a window called name; detached keeps the
// window shown. With -P it returns the new pane (-F FORMAT).
func (a *App) newWindowFor(c Call, name string, detached bool) (string, error) {
	s := splitSpec(c)
	if len(c.Args) == 1 && slices.Contains(a.paneKinds(), pane.Kind(c.Args[0])) {
		s = pane.Spec{Kind: pane.Kind(c.Args[0])}
	}
	shown := a.layout.window
	if _, err := a.NewWindow(s, name); err != nil {
		return "", err
	}
	lf := a.layout.focused
	if detached && shown != nil {
		a.selectWindow(shown)
	}
	if c.Has('P') {
		return a.printPane(lf, c.Flags['F']), nil
	}
	return "", nil
}
