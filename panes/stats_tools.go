package panes

import (
	"strconv"

	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/termsafe"
)

// statsToolHeads are the per-tool table's figure columns.
var statsToolHeads = []string{"calls", "output", "saved"}

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
