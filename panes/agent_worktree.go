package panes

// SetBranch shows the agent's git branch in the pane's title.
func (p *AgentPane) SetBranch(branch string) { p.branch = branch }

// SetDiff sets what the diff key runs: diff keeps the agent's worktree
// diff in the vault and returns the block's id, which the pane opens.
func (p *AgentPane) SetDiff(diff func() (id string, err error)) { p.diff = diff }

// showDiff keeps the worktree's diff in the vault off the UI goroutine,
// as git may take a while, then opens the block.
func (p *AgentPane) showDiff() {
	diff := p.diff
	if diff == nil {
		p.env.Tell("no worktree (start kws with --worktree)")
		return
	}
	go func() {
		id, err := diff()
		p.env.Update(func() {
			if err != nil {
				p.env.Tell(err.Error())
				return
			}
			p.open(id)
		})
	}()
}
