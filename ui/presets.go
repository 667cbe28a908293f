package ui

import (
	"fmt"
	"slices"
	"strings"
)

// Preset names one of tmux's preset layouts, which arrange every pane of
// the window afresh.
type Preset string

// The preset layouts, in the order next-layout (C-b Space) cycles them, as
// tmux's: EvenHorizontal puts every pane side by side, EvenVertical stacks
// them, MainHorizontal puts the first pane on top with the others side by
// side below it, MainVertical puts it on the left with the others stacked
// on its right, Tiled puts them in a grid of rows as equal as can be.
const (
	EvenHorizontal Preset = "even-horizontal"
	EvenVertical   Preset = "even-vertical"
	MainHorizontal Preset = "main-horizontal"
	MainVertical   Preset = "main-vertical"
	Tiled          Preset = "tiled"
)

// Presets are the preset layouts in next-layout's order.
var Presets = []Preset{EvenHorizontal, EvenVertical, MainHorizontal, MainVertical, Tiled}

// ParsePreset reads a preset's name; a unique prefix is enough ("tile").
func ParsePreset(name string) (Preset, error) {
	var found []Preset
	for _, p := range Presets {
		if string(p) == name {
			return p, nil
		}
		if name != "" && strings.HasPrefix(string(p), name) {
			found = append(found, p)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	names := make([]string, len(Presets))
	for i, p := range Presets {
		names[i] = string(p)
	}
	return "", fmt.Errorf("no layout %q (layouts: %s)", name, strings.Join(names, ", "))
}

// gridOf is the rows and columns tmux's tiled layout uses for n panes: the
// smallest grid, rows growing first, that holds them all.
func gridOf(n int) (rows, cols int) {
	rows, cols = 1, 1
	for rows*cols < n {
		rows++
		if rows*cols < n {
			cols++
		}
	}
	return rows, cols
}

// arrangePreset rebuilds the tree from its leaves, in reading order, as
// preset p lays them out. It unzooms, as tmux's select-layout does.
func (t *tree) arrangePreset(p Preset) {
	leaves := t.leaves()
	if len(leaves) == 0 {
		return
	}
	t.zoomed = nil
	nodes := make([]*node, len(leaves))
	for i, lf := range leaves {
		nodes[i] = &node{leaf: lf}
		lf.node = nodes[i]
	}
	var root *node
	switch main, rest := nodes[0], nodes[1:]; {
	case len(nodes) == 1:
		root = main
	case p == EvenVertical:
		root = splitOf(TopBottom, nodes)
	case p == MainHorizontal:
		root = splitOf(TopBottom, []*node{main, splitOf(LeftRight, rest)})
	case p == MainVertical:
		root = splitOf(LeftRight, []*node{main, splitOf(TopBottom, rest)})
	case p == Tiled:
		rows, cols := gridOf(len(nodes))
		var rowNodes []*node
		for r := range rows {
			if r*cols >= len(nodes) {
				break
			}
			rowNodes = append(rowNodes, splitOf(LeftRight, nodes[r*cols:min((r+1)*cols, len(nodes))]))
		}
		root = splitOf(TopBottom, rowNodes)
	default:
		root = splitOf(LeftRight, nodes)
	}
	root.parent = nil
	t.root = root
}

// splitOf returns a split of children along d with equal shares, or the
// only child itself.
func splitOf(d Dir, children []*node) *node {
	if len(children) == 1 {
		return children[0]
	}
	n := &node{dir: d, children: slices.Clone(children), weights: make([]float64, len(children))}
	for i, c := range n.children {
		c.parent = n
		n.weights[i] = 1
	}
	return n
}

// selectLayout arranges every pane of the window as preset p, keeping the
// focus where it is.
func (a *App) selectLayout(p Preset) {
	if len(a.layout.tree.leaves()) == 0 {
		return
	}
	a.layout.tree.arrangePreset(p)
	a.layout.preset = p
	a.relayout()
	a.changed()
}

// nextLayout arranges the panes as the preset after the last one chosen,
// the first when none was, as tmux's next-layout does.
func (a *App) nextLayout() {
	i := slices.Index(Presets, a.layout.preset)
	a.selectLayout(Presets[(i+1)%len(Presets)])
}

// relayout gives every node its place now, so that code running before
// the next draw (a split's room check) sees the new sizes.
func (a *App) relayout() {
	x, y, w, h := a.layout.GetRect()
	a.layout.arrange(a.layout.tree.root, x, y, w, h)
}
