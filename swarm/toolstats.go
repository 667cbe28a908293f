package swarm

import (
	"sort"

	"github.com/kwsdev/kws/agent"
)

// ToolStatser is a runner that reports its figures per tool;
// *agent.Agent is one. The swarm reads them after each turn.
type ToolStatser interface {
	ToolStats() []agent.ToolStat
}

// addTools sums two lists of per-tool figures by tool name, most output
// first.
func addTools(a, b []agent.ToolStat) []agent.ToolStat {
	if len(b) == 0 {
		return a
	}
	by := map[string]agent.ToolStat{}
	for _, st := range append(append([]agent.ToolStat(nil), a...), b...) {
		cur := by[st.Name]
		cur.Name = st.Name
		cur.Calls += st.Calls
		cur.OutputTokens += st.OutputTokens
		cur.SavedTokens += st.SavedTokens
		by[st.Name] = cur
	}
	out := make([]agent.ToolStat, 0, len(by))
	for _, st := range by {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].OutputTokens != out[j].OutputTokens {
			return out[i].OutputTokens > out[j].OutputTokens
		}
		return out[i].Name < out[j].Name
	})
	return out
}
