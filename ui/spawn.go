package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/panes/pane"
)

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

// OpenAgent opens a new agent pane of the role after the others, tiles
// the window and returns the pane; call it on the UI goroutine. It fails
// when the tiled panes would be smaller than a split may leave.
func (a *App) OpenAgent(role string) (pane.Pane, error) { return a.openTiled(agentSpec(role)) }

// openTiled opens the pane s names after the last pane and arranges
// every pane tiled, as a tmux user does after opening several, so that
// spawned agents never halve a pane that is already small. It fails when
// the grid would leave a pane smaller than a split may.
func (a *App) openTiled(s pane.Spec) (pane.Pane, error) {
	leaves := a.layout.tree.leaves()
	if !a.roomToTile(len(leaves) + 1) {
		return nil, errors.New("no space")
	}
	p, err := a.cfg.Panes.New(s)
	if err != nil {
		a.Notify(fmt.Sprintf("cannot open a %s pane: %v", s, err))
		return nil, err
	}
	var last *leaf
	if len(leaves) > 0 {
		last = leaves[len(leaves)-1]
	}
	lf := a.insert(last, LeftRight, s, p)
	a.layout.tree.arrangePreset(Tiled)
	a.preset = Tiled
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
