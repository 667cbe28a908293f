package app

import "testing"

// TestWorkstationBoardShowsOutsideChanges: a task another process of the
// server adds to the board (an MCP client through kws mcp serve) shows in
// the board pane once the stores say they changed, without any event of
// the workstation's own swarm.
func TestWorkstationBoardShowsOutsideChanges(t *testing.T) {
	r := newWSRig(t, 120, 40, false)
	r.press("Ctrl-b", "b")
	r.waitFor("board · 0 open")
	if _, err := r.w.st.Vault().AddTask("triage the flaky test", "", "mcp:claude-code"); err != nil {
		t.Fatal(err)
	}
	r.w.st.Changed()
	r.waitFor("board · 1 open")
}
