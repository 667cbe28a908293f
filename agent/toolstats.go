package agent

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tokens"
)

// ToolStat is one tool's figures in the agent's session.
type ToolStat struct {
	Name  string `json:"name"`
	Calls int    `json:"calls"`
	// OutputTokens are the tokens of its results, exact.
	OutputTokens int `json:"output_tokens"`
	// SavedTokens are what the latest prompt saved on those results:
	// their exact tokens less what was sent for them, a result a
	// compaction summarized counting whole.
	SavedTokens int `json:"saved_tokens"`
}

// sentPrompt is the latest prompt sent: the diet's result and the
// transcript messages it was built from.
type sentPrompt struct {
	res  diet.Result
	meta []provider.Message
}

// noteSent keeps res, the prompt just sent, for ToolStats and the stats
// tool.
func (a *Agent) noteSent(res diet.Result) {
	a.last = &sentPrompt{res: res, meta: a.meta[:len(res.Messages):len(res.Messages)]}
}

// ToolStats returns each tool's figures, most output first.
func (a *Agent) ToolStats() []ToolStat {
	sent := map[string]int{}
	if l := a.last; l != nil {
		for i, m := range l.meta {
			if m.Role == "tool" {
				sent[m.ToolCallID] = l.res.Tokens[i]
			}
		}
	}
	names := map[string]string{}
	by := map[string]*ToolStat{}
	for i, m := range a.history {
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Name
			if by[tc.Name] == nil {
				by[tc.Name] = &ToolStat{Name: tc.Name}
			}
			by[tc.Name].Calls++
		}
		st := by[names[m.ToolCallID]]
		if m.Role != "tool" || st == nil {
			continue
		}
		exact := tokens.Default().Count(m.Content).Tokens
		st.OutputTokens += exact
		switch s, ok := sent[m.ToolCallID]; {
		case i < a.compactFrom:
			st.SavedTokens += exact
		case ok:
			st.SavedTokens += max(exact+diet.MsgOverheadTokens-s, 0)
		}
	}
	out := make([]ToolStat, 0, len(by))
	for _, st := range by {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].OutputTokens != out[j].OutputTokens {
			return out[i].OutputTokens > out[j].OutputTokens
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// statsReport is the stats tool's answer: the session's totals, what the
// latest prompt held, and the figures per tool.
func (a *Agent) statsReport() (string, error) {
	t := a.totals
	var b strings.Builder
	fmt.Fprintf(&b, "session figures of %s after %d model calls\n", a.cfg.Name, t.Calls)
	saved := 0.0
	if t.NaiveTokens > 0 {
		saved = 100 * float64(t.NaiveTokens-t.SentTokens) / float64(t.NaiveTokens)
	}
	fmt.Fprintf(&b, "prompts over all calls: naive %s tokens, sent %s, saved %.1f %%\n", thousands(t.NaiveTokens), thousands(t.SentTokens), saved)
	fmt.Fprintf(&b, "provider reported: prompt %s, completion %s, cached %s\n", thousands(t.PromptTokens), thousands(t.CompletionTokens), thousands(t.CachedTokens))
	fmt.Fprintf(&b, "page faults %d, compactions %d, tool calls %d\n", t.PageFaults, t.Compactions, t.ToolCalls)
	if l := a.last; l != nil {
		b.WriteString("\nlatest prompt:\n")
		b.WriteString(a.view(l.res, l.meta).Render(78))
		b.WriteString("\n")
	}
	stats := a.ToolStats()
	if len(stats) == 0 {
		b.WriteString("\nno tool calls yet\n")
		return b.String(), nil
	}
	fmt.Fprintf(&b, "\n%-16s %6s %14s %14s\n", "tool", "calls", "output tokens", "saved tokens")
	for _, st := range stats {
		fmt.Fprintf(&b, "%-16s %6d %14s %14s\n", clip(st.Name, 16), st.Calls, thousands(st.OutputTokens), thousands(st.SavedTokens))
	}
	return b.String(), nil
}
