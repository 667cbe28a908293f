// Package ui is the workstation application: a tmux-like layout tree of
// panes, the Ctrl-b prefix key table, the hints and status bars, the help
// screen, the command palette and the quit dialog.
package ui

import (
	"github.com/kwsdev/kws/panes/pane"
)

// Dir is a split's direction.
type Dir int

// Split directions, named like tmux: LeftRight puts the children side by
// side (tmux's %), TopBottom stacks them (tmux's ").
const (
	LeftRight Dir = iota
	TopBottom
)

// node is one node of the layout tree: a leaf holding a pane, or a split
// holding two or more children with their shares of the space.
type node struct {
	parent   *node
	dir      Dir
	children []*node
	weights  []float64
	leaf     *leaf
	// size is the split's extent along dir at the last draw, in cells.
	size int
}

// tree is the layout: a root node, the zoomed leaf if any.
type tree struct {
	root   *node
	zoomed *leaf
}

// leaves returns the leaves in reading order (depth first), which is the
// order panes are numbered in.
func (t *tree) leaves() []*leaf {
	var out []*leaf
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.leaf != nil {
			out = append(out, n.leaf)
			return
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(t.root)
	return out
}

// split puts p beside l: after it in direction d. The new leaf takes half
// of l's space, as tmux does.
func (t *tree) split(l *leaf, d Dir, p pane.Pane) *leaf {
	nl := &leaf{pane: p}
	nn := &node{leaf: nl}
	nl.node = nn
	if l == nil {
		t.root = nn
		return nl
	}
	at := l.node
	parent := at.parent
	if parent != nil && parent.dir == d {
		i := indexOf(parent.children, at)
		half := parent.weights[i] / 2
		parent.weights[i] = half
		parent.children = insert(parent.children, i+1, nn)
		parent.weights = insertF(parent.weights, i+1, half)
		nn.parent = parent
		return nl
	}
	// Replace the leaf's node by a split holding the old leaf and the new.
	old := &node{leaf: l, parent: at}
	l.node = old
	at.leaf = nil
	at.dir = d
	at.children = []*node{old, nn}
	at.weights = []float64{1, 1}
	nn.parent = at
	return nl
}

// remove takes l out of the tree; a split left with one child is replaced
// by that child.
func (t *tree) remove(l *leaf) {
	if t.zoomed == l {
		t.zoomed = nil
	}
	n := l.node
	parent := n.parent
	if parent == nil {
		t.root = nil
		return
	}
	i := indexOf(parent.children, n)
	parent.children = append(parent.children[:i], parent.children[i+1:]...)
	parent.weights = append(parent.weights[:i], parent.weights[i+1:]...)
	if len(parent.children) == 1 {
		only := parent.children[0]
		parent.dir, parent.children, parent.weights, parent.leaf = only.dir, only.children, only.weights, only.leaf
		for _, c := range parent.children {
			c.parent = parent
		}
		if parent.leaf != nil {
			parent.leaf.node = parent
		}
	}
}

// resize moves l's border along d by delta cells (positive is right or
// down), as tmux's resize-pane does: the border after l, or before it when
// l is the last pane of the nearest ancestor split along d.
func (t *tree) resize(l *leaf, d Dir, delta int) {
	n := l.node
	for n.parent != nil && n.parent.dir != d {
		n = n.parent
	}
	p := n.parent
	if p == nil {
		return
	}
	// The border moved is the one after n, or for the last child the one
	// before it: moving that one in the key's direction shrinks n.
	i := indexOf(p.children, n)
	j := i + 1
	if j == len(p.children) {
		j, delta = i-1, -delta
	}
	total := 0.0
	for _, w := range p.weights {
		total += w
	}
	size := p.size
	if size <= 0 {
		return
	}
	step := float64(delta) * total / float64(size)
	a, b := p.weights[i]+step, p.weights[j]-step
	least := 3 * total / float64(size)
	if a < least || b < least {
		return
	}
	p.weights[i], p.weights[j] = a, b
}

func indexOf(ns []*node, n *node) int {
	for i, c := range ns {
		if c == n {
			return i
		}
	}
	return -1
}

func insert(ns []*node, i int, n *node) []*node {
	ns = append(ns, nil)
	copy(ns[i+1:], ns[i:])
	ns[i] = n
	return ns
}

func insertF(ws []float64, i int, w float64) []float64 {
	ws = append(ws, 0)
	copy(ws[i+1:], ws[i:])
	ws[i] = w
	return ws
}
