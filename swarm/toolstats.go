package swarm

import "github.com/kwsdev/kws/agent"

// ToolStatser is a runner that reports its figures per tool;
// *agent.Agent is one. The swarm reads them after each turn.
type ToolStatser interface {
	ToolStats() []agent.ToolStat
}
