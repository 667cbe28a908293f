package panes

import (
	"sort"
	"strconv"

	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/termsafe"
)

// statsToolHeads are the per-tool table's figure columns.
var statsToolHeads = []string{"calls", "output", "saved"}

// sumTools sums every agent's per-tool figures by tool name, most output
// first.
func sumTools(infos []swarm.Info) []agent.ToolStat {
	by := map[string]agent.ToolStat{}
	for _, in := range infos {
		for _, st := range in.Stats.Tools {
			cur := by[st.Name]
			cur.Name = st.Name
			cur.Calls += st.Calls
			cur.OutputTokens += st.OutputTokens
			cur.SavedTokens += st.SavedTokens
			by[st.Name] = cur
		}
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

// toolLines lays out the per-tool table of every agent's tools: calls,
// output tokens and the tokens the diet saved on their results. It is
// empty until a tool has been called.
func (p *StatsPane) toolLines(tools []agent.ToolStat) [][]statsSpan {
	if len(tools) == 0 {
		return nil
	}
	th := p.env.Theme
	base := th.Base.TCell()
	rows := make([][]string, len(tools))
	nameW := len("tool")
	widths := make([]int, len(statsToolHeads))
	for i, h := range statsToolHeads {
		widths[i] = len(h)
	}
	for r, st := range tools {
		name := termsafe.OneLine(st.Name)
		nameW = max(nameW, runewidth.StringWidth(name))
		rows[r] = []string{name, strconv.Itoa(st.Calls), statsHuman(st.OutputTokens), statsHuman(st.SavedTokens)}
		for i, v := range rows[r][1:] {
			widths[i] = max(widths[i], len(v))
		}
	}
	head := []statsSpan{{statsPad("tool", nameW, false), th.Title.TCell()}}
	for i, h := range statsToolHeads {
		head = append(head, statsSpan{"  ", base}, statsSpan{statsPad(h, widths[i], true), th.Title.TCell()})
	}
	out := [][]statsSpan{nil, {{"per tool, every agent: calls, output tokens, tokens the diet saved on them", th.Title.TCell()}}, head}
	for _, row := range rows {
		line := []statsSpan{{statsPad(row[0], nameW, false), base}}
		for i, v := range row[1:] {
			st := base
			if i == 2 {
				st = th.StatsSaved.TCell()
			}
			line = append(line, statsSpan{"  ", base}, statsSpan{statsPad(v, widths[i], true), st})
		}
		out = append(out, line)
	}
	return out
}
