package panes

import (
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/panes/pane"
)

// welcome is what an agent pane with an empty transcript shows: the agent
// and a few tips, each naming the key it is bound to now. A tip that does
// not fit the width whole is left out.
func (p *AgentPane) welcome(w int) []line {
	th := p.env.Theme
	title := p.name + " is ready"
	if info, err := p.agents.Info(p.name); err == nil && info.Role != "" {
		title = p.name + " (" + info.Role + ") is ready"
	}
	out := []line{{{text: pane.FitWords(title, w), style: th.ChatAssistant.TCell()}}, nil}
	tips := []string{
		p.keyName("send") + " sends · Alt-Enter adds a line · " + p.keyName("unselect") + " stops a turn",
		"/help lists commands and skills; Tab completes them",
		p.keyName("next-ref") + " selects a vault ref in the transcript; " + p.keyName("open-ref") + " opens its exact text",
	}
	if pre := p.env.Prefix; pre != "" {
		tips = append(tips, pre+" ? lists every key · "+pre+" % splits · "+pre+" d detaches")
	}
	for _, tip := range tips {
		if pane.FitWords(tip, w) == tip {
			out = append(out, line{{text: tip, style: th.ChatSystem.TCell()}})
		}
	}
	return out
}

// placeholder is what the empty prompt shows in w columns: the newline
// key too when it fits.
func (p *AgentPane) placeholder(w int) string {
	if full := "ask " + p.name + "; Alt-Enter: new line"; runewidth.StringWidth(full) <= w {
		return full
	}
	return pane.FitWords("ask "+p.name, w)
}
