package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/panes/pane"
)

// spawn runs `spawn [-w] N [ROLE] "task"` (args are N and what follows):
// N new agent panes, each with the role and given the task, tiled in the
// window; own opens them in a new window. When the window is full the
// rest go on in a new one.
func (a *App) spawn(own bool, args []string) error {
	n := 0
	if len(args) > 0 {
		n, _ = strconv.Atoi(args[0])
	}
	if n < 1 || n > 16 {
		return errors.New(`spawn [-w] N [role] "task": N is a number of agents from 1 to 16`)
	}
	role, task := a.roleAndTask(strings.Join(args[1:], " "))
	name := role
	if name == "" {
		name = "agents"
	}
	var moved []int
	for i := range n {
		var p pane.Pane
		var err error
		if own && i == 0 {
			p, err = a.NewWindow(agentSpec(role), name)
		} else {
			var fresh bool
			p, fresh, err = a.openTiledOrWindow(agentSpec(role), name)
			if fresh {
				moved = append(moved, a.windowIndex(a.layout.window))
			}
		}
		if err != nil {
			return fmt.Errorf("opened %d of %d agent panes: %w", i, n, err)
		}
		if t, ok := p.(pane.Tasker); ok && task != "" {
			if err := t.SendTask(task); err != nil {
				a.Notify(err.Error())
			}
		}
	}
	if len(moved) > 0 {
		a.Notify(fmt.Sprintf("the window was full: agents went on in window %d", moved[0]))
	}
	return nil
}

// OpenAgent opens a new agent pane of the role after the others, tiles
// the window and returns the pane; when the window has no room for it, it
// opens in a new window. Call it on the UI goroutine.
func (a *App) OpenAgent(role string) (pane.Pane, error) {
	name := role
	if name == "" {
		name = "agents"
	}
	p, _, err := a.openTiledOrWindow(agentSpec(role), name)
	return p, err
}

// openTiled opens the pane s names after the last pane and arranges
// every pane tiled, as a tmux user does after opening several, so that
// spawned agents never halve a pane that is already small. It fails with
// errNoRoom when the grid would leave a pane smaller than a split may.
func (a *App) openTiled(s pane.Spec) (pane.Pane, error) {
	leaves := a.layout.tree.leaves()
	if !a.roomToTile(len(leaves) + 1) {
		return nil, errNoRoom
	}
	p, s, err := a.build(s)
	if err != nil {
		return nil, fmt.Errorf("cannot open a %s pane: %w", s, err)
	}
	var last *leaf
	if len(leaves) > 0 {
		last = leaves[len(leaves)-1]
	}
	lf := a.insert(last, LeftRight, s, p)
	a.layout.tree.arrangePreset(Tiled)
	a.layout.preset = Tiled
	a.relayout()
	a.focusLeaf(lf)
	return p, nil
}

// roomToTile reports whether n panes tiled leave each at least the size a
// split may leave.
func (a *App) roomToTile(n int) bool {
	_, _, w, h := a.layout.GetRect()
	if w == 0 {
		return true
	}
	rows, cols := gridOf(n)
	return w/cols >= minPaneW && h/rows >= minPaneH
}
