package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kwsdev/kws/panes/pane"
)

// Snapshot is the layout as a journal keeps it, so that a workstation
// that died can come back as it was: its windows, each a tree of splits
// and panes with its focus and zoom, and the window on the screen. It
// encodes to JSON.
type Snapshot struct {
	// Windows are the windows in order; none when no pane is open.
	Windows []WindowSnapshot `json:"windows,omitempty"`
	// Window is the index of the window on the screen.
	Window int `json:"window,omitempty"`
}

// WindowSnapshot is one window of a Snapshot.
type WindowSnapshot struct {
	// Name is the name the user gave the window; "" for the automatic one.
	Name string `json:"name,omitempty"`
	// Root is the window's layout tree.
	Root *SnapshotNode `json:"root,omitempty"`
	// Focus is the focused pane's number: its index in reading order.
	Focus int `json:"focus"`
	// Zoomed reports that the focused pane is zoomed.
	Zoomed bool `json:"zoomed,omitempty"`
	// Layout is the preset layout chosen last, which next-layout goes on
	// from; "" when none was.
	Layout Preset `json:"layout,omitempty"`
}

// UnmarshalJSON reads a snapshot, also one written before kws had
// windows, which holds its one window's fields at the top level.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	type plain Snapshot
	var v struct {
		plain
		WindowSnapshot
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Snapshot(v.plain)
	if len(s.Windows) == 0 && v.Root != nil {
		s.Windows = []WindowSnapshot{v.WindowSnapshot}
	}
	return nil
}

// SnapshotNode is one node of a Snapshot's tree: a pane when Pane is set,
// else a split of Children along Dir, each child with its share of the
// space in Weights.
type SnapshotNode struct {
	// Pane is the spec the pane is rebuilt from: its kind, its role and
	// the State it gave as a pane.Persister.
	Pane *pane.Spec `json:"pane,omitempty"`
	// Dir is the split's direction; JSON leaves out LeftRight, the zero.
	Dir      Dir            `json:"dir,omitempty"`
	Children []SnapshotNode `json:"children,omitempty"`
	Weights  []float64      `json:"weights,omitempty"`
}

// maxID is the largest pane id in the tree, 0 in none (or a nil tree).
func (n *SnapshotNode) maxID() int {
	if n == nil {
		return 0
	}
	m := 0
	if n.Pane != nil {
		m = n.Pane.ID
	}
	for i := range n.Children {
		m = max(m, n.Children[i].maxID())
	}
	return m
}

// MarshalText names the direction: "left-right" or "top-bottom".
func (d Dir) MarshalText() ([]byte, error) {
	switch d {
	case LeftRight:
		return []byte("left-right"), nil
	case TopBottom:
		return []byte("top-bottom"), nil
	}
	return nil, fmt.Errorf("ui: no direction %d", int(d))
}

// UnmarshalText reads a direction as MarshalText names it.
func (d *Dir) UnmarshalText(b []byte) error {
	switch string(b) {
	case "left-right":
		*d = LeftRight
	case "top-bottom":
		*d = TopBottom
	default:
		return fmt.Errorf("ui: no direction %q (left-right or top-bottom)", b)
	}
	return nil
}

// Snapshot returns the layout as it stands, with each persisting pane's
// state read now. Call it on the UI goroutine (from OnLayoutChange, or
// through Update).
func (a *App) Snapshot() Snapshot {
	var s Snapshot
	for _, w := range a.windows {
		t := &w.tree
		if t.root == nil {
			continue
		}
		if w == a.layout.window {
			s.Window = len(s.Windows)
		}
		leaves := t.leaves()
		s.Windows = append(s.Windows, WindowSnapshot{Name: w.name, Root: snapshotOf(t.root),
			Focus: max(slices.Index(leaves, w.focused), 0), Zoomed: t.zoomed != nil && t.zoomed == w.focused, Layout: w.preset})
	}
	return s
}

// snapshotOf returns the snapshot of the subtree at n.
func snapshotOf(n *node) *SnapshotNode {
	if n == nil {
		return nil
	}
	if n.leaf != nil {
		spec := n.leaf.spec
		spec.State = nil
		if p, ok := n.leaf.pane.(pane.Persister); ok {
			spec.State = p.PersistState()
		}
		return &SnapshotNode{Pane: &spec}
	}
	out := &SnapshotNode{Dir: n.dir, Weights: slices.Clone(n.weights)}
	for _, c := range n.children {
		out.Children = append(out.Children, *snapshotOf(c))
	}
	return out
}

// check reports the first thing that makes the subtree at n unusable.
func (n *SnapshotNode) check() error {
	if n.Pane != nil {
		if len(n.Children) > 0 {
			return errors.New("a node is both a pane and a split")
		}
		if n.Pane.Kind == "" {
			return errors.New("a pane has no kind")
		}
		return nil
	}
	if n.Dir != LeftRight && n.Dir != TopBottom {
		return fmt.Errorf("a split has no direction %d", int(n.Dir))
	}
	if len(n.Children) == 0 || len(n.Weights) != len(n.Children) {
		return fmt.Errorf("a split has %d children and %d weights", len(n.Children), len(n.Weights))
	}
	for _, w := range n.Weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("a split has weight %v", w)
		}
	}
	for i := range n.Children {
		if err := n.Children[i].check(); err != nil {
			return err
		}
	}
	return nil
}

// restore rebuilds the windows s describes, each pane through the
// registry, and reports whether any pane opened. A pane that cannot be
// built is reported and left out, its split giving its space to the rest,
// and a window left with no pane is left out. An empty or invalid
// snapshot opens nothing, so that the caller opens the default layout.
func (a *App) restore(s Snapshot) bool {
	for i := range s.Windows {
		if s.Windows[i].Root == nil {
			continue
		}
		if err := s.Windows[i].Root.check(); err != nil {
			a.Notify(fmt.Sprintf("cannot restore the layout (%v); opening the default one", err))
			return false
		}
	}
	for _, ws := range s.Windows {
		a.paneSeq = max(a.paneSeq, ws.Root.maxID())
	}
	var failed []string
	var windows []*window
	show := -1
	for i, ws := range s.Windows {
		w, fails := a.restoreWindow(ws)
		failed = append(failed, fails...)
		if w == nil {
			continue
		}
		if i == s.Window || show < 0 {
			show = len(windows)
		}
		windows = append(windows, w)
	}
	if len(failed) > 0 {
		a.Notify("restored the layout without: " + strings.Join(failed, "; "))
	}
	if len(windows) == 0 {
		return false
	}
	a.windows = windows
	a.layout.window = windows[0]
	// Focus each window's pane in turn, so that the window shown comes
	// last and the others keep their focus.
	for i, w := range windows {
		if i != show {
			a.selectWindow(w)
		}
	}
	a.selectWindow(windows[show])
	a.lastWin = nil
	return true
}

// restoreWindow rebuilds one window of a snapshot, with the reasons of
// the panes that failed; nil when none of its panes opens.
func (a *App) restoreWindow(ws WindowSnapshot) (*window, []string) {
	if ws.Root == nil {
		return nil, nil
	}
	var failed []string
	var focus *leaf
	count := 0
	var build func(sn *SnapshotNode) *node
	build = func(sn *SnapshotNode) *node {
		if sn.Pane != nil {
			count++
			// A journal from before pane ids gets them now.
			p, spec, err := a.build(*sn.Pane)
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s pane: %v", sn.Pane, err))
				return nil
			}
			lf := &leaf{pane: p}
			lf.spec = spec
			lf.node = &node{leaf: lf}
			if count-1 == ws.Focus {
				focus = lf
			}
			return lf.node
		}
		n := &node{dir: sn.Dir}
		for i := range sn.Children {
			if c := build(&sn.Children[i]); c != nil {
				c.parent = n
				n.children = append(n.children, c)
				n.weights = append(n.weights, sn.Weights[i])
			}
		}
		switch len(n.children) {
		case 0:
			return nil
		case 1:
			only := n.children[0]
			only.parent = nil
			return only
		}
		return n
	}
	root := build(ws.Root)
	if root == nil {
		return nil, failed
	}
	w := &window{name: windowName(ws.Name)}
	w.tree.root = root
	if p, err := ParsePreset(string(ws.Layout)); err == nil && p == ws.Layout {
		w.preset = p
	}
	leaves := w.tree.leaves()
	if focus == nil {
		focus = leaves[0]
	}
	w.focused = focus
	if ws.Zoomed && len(leaves) > 1 {
		w.tree.zoomed = focus
	}
	return w, failed
}
