package app

import (
	"fmt"
	"time"

	"github.com/kwsdev/kws/panes"
	"github.com/kwsdev/kws/swarm"
)

// worktree is an agent's own git worktree (--worktree).
type worktree struct {
	dir, branch string
}

// agentWorkspace is the directory agent name works in: with --worktree
// its own git worktree of the workspace, else the workspace itself.
func (w *Workstation) agentWorkspace(name string) (string, error) {
	if !w.useWorktrees {
		return w.ws, nil
	}
	dir, branch, err := w.git().AddWorktree(w.ws, name)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	if w.worktrees == nil {
		w.worktrees = map[string]worktree{}
	}
	w.worktrees[name] = worktree{dir: dir, branch: branch}
	w.mu.Unlock()
	return dir, nil
}

// agentDir returns the directory the agent called name works in, for the
// swarm's file-touch notices: the workspace, or its worktree once made.
func (w *Workstation) agentDir(name string) string {
	if !w.useWorktrees {
		return w.ws
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.worktrees[name].dir
}

// wireWorktree shows the branch of the pane's agent in its title and lets
// its diff key keep the worktree's diff in the vault, when the agent has
// a worktree.
func (w *Workstation) wireWorktree(p *panes.AgentPane) {
	w.mu.Lock()
	wt, ok := w.worktrees[p.Name()]
	w.mu.Unlock()
	if !ok {
		return
	}
	p.SetBranch(wt.branch)
	p.SetDiff(func() (string, error) {
		diff, err := w.git().WorktreeDiff(w.ws, wt.dir)
		if err != nil {
			return "", err
		}
		if diff == "" {
			return "", fmt.Errorf("no changes on %s yet", wt.branch)
		}
		id, err := Keep(w.st.vault, "worktree:diff", p.Name(), []byte(diff))
		if err != nil {
			return "", err
		}
		w.env.Update(func() {
			w.feed.vaultAt = time.Time{}
			w.feed.refreshVault()
		})
		return id, nil
	})
}

// git runs kws's own git on the workspace confined as agent commands are.
func (w *Workstation) git() swarm.Git { return swarm.Git{Policy: w.st.Sandbox().Policy} }
