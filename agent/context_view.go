package agent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tokens"
)

// The parts of a prompt ContextView counts, in the order it shows them.
const (
	PartSystem   = "system"
	PartTools    = "tool schemas"
	PartPinned   = "pinned"
	PartSummary  = "summary"
	PartMemory   = "memory hints"
	PartExact    = "history exact"
	PartRefs     = "refs"
	PartSeenRefs = "seen refs"
)

// partOrder lists the parts in display order.
var partOrder = []string{PartSystem, PartTools, PartPinned, PartSummary, PartMemory, PartExact, PartRefs, PartSeenRefs}

// ContextPart is one part of the next prompt: its tokens and how many
// items (messages, tools, refs) make it up.
type ContextPart struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Items  int    `json:"items"`
}

// ContextView is what the agent's next prompt holds, part by part, as
// the diet would send it now, with the limits it is measured against.
type ContextView struct {
	Agent string        `json:"agent"`
	Parts []ContextPart `json:"parts"`
	// Total is the prompt's tokens, every part included.
	Total int `json:"total_tokens"`
	// Window is the model's context window; Compact is the prompt size
	// at which older turns are summarized (0 when the window is unknown);
	// Trigger is the size above which the diet moves old blocks to the
	// vault.
	Window  int `json:"window"`
	Compact int `json:"compact_at"`
	Trigger int `json:"trigger"`
	// Messages is how many messages the prompt holds.
	Messages int `json:"messages"`
}

// memoryMark starts the memory hint block a user turn carries (see Run).
const memoryMark = "\n\n<memory "

// Context returns what the next prompt holds. It builds the prompt as the
// next call would (a diet epoch that is due happens now rather than at
// that call) and offers every tool, as a tool turn does. It must not run
// while a turn runs (one goroutine owns the agent).
func (a *Agent) Context() (ContextView, error) {
	res, err := a.dietS.Build()
	if err != nil {
		return ContextView{}, err
	}
	return a.view(res, a.meta), nil
}

// view is the view of res, the prompt the diet built from the transcript
// messages meta.
func (a *Agent) view(res diet.Result, meta []provider.Message) ContextView {
	parts := map[string]*ContextPart{}
	for _, n := range partOrder {
		parts[n] = &ContextPart{Name: n}
	}
	add := func(name string, tok int) {
		parts[name].Tokens += tok
		parts[name].Items++
	}
	count := tokens.Default()
	for i, m := range res.Messages {
		if m.Elided {
			continue // not sent: its run's ref stands for it
		}
		tok := res.Tokens[i] + callTokens(meta[i])
		switch {
		case i == 0 && m.Role == "system":
			add(PartSystem, tok)
		case m.Kind == "pinned":
			add(PartPinned, tok)
		case m.Kind == "compaction":
			add(PartSummary, tok)
		case m.Content == meta[i].Content:
			if j := strings.LastIndex(m.Content, memoryMark); j >= 0 && m.Role == "user" {
				mem := count.Count(m.Content[j:]).Tokens
				add(PartMemory, mem)
				tok -= mem
			}
			add(PartExact, tok)
		case strings.HasPrefix(m.Content, "<il:seen"):
			add(PartSeenRefs, tok)
		default:
			add(PartRefs, tok)
		}
	}
	specs := a.toolSpecs(false)
	parts[PartTools].Tokens, parts[PartTools].Items = schemaTokens(specs), len(specs)
	v := ContextView{Agent: a.cfg.Name, Window: a.cfg.Profile.ContextWindow, Compact: a.budget(),
		Trigger: a.dietS.Params().TriggerTokens, Messages: len(res.Messages), Total: diet.PromptOverheadTokens}
	for _, n := range partOrder {
		v.Parts = append(v.Parts, *parts[n])
		v.Total += parts[n].Tokens
	}
	return v
}

// callTokens counts the tool calls of an assistant message: their names
// and arguments, which the diet's message counts leave out.
func callTokens(m provider.Message) int {
	n := 0
	for _, tc := range m.ToolCalls {
		n += tokens.Default().Count(tc.Name + tc.Arguments).Tokens
	}
	return n
}

// schemaTokens counts the tool schemas as the request carries them.
func schemaTokens(specs []provider.ToolSpec) int {
	if len(specs) == 0 {
		return 0
	}
	data, err := json.Marshal(specs)
	if err != nil {
		return 0
	}
	return tokens.Default().Count(string(data)).Tokens
}

// Render draws the view as text width columns wide: a headline, a bar of
// the prompt against the compaction threshold, and a row per part with
// its tokens, share and bar.
func (v ContextView) Render(width int) string {
	width = max(width, 40)
	var b strings.Builder
	fmt.Fprintf(&b, "next prompt of %s: %s tokens in %d messages", v.Agent, thousands(v.Total), v.Messages)
	limit, of := v.Compact, "of compaction"
	if limit > 0 {
		fmt.Fprintf(&b, "\nwindow %s · compacts at %s · diet trigger %s", thousands(v.Window), thousands(v.Compact), thousands(v.Trigger))
	} else {
		fmt.Fprintf(&b, "\ndiet trigger %s (window unknown)", thousands(v.Trigger))
		limit, of = max(v.Trigger, 1), "of the trigger"
	}
	barW := width - len(of) - 11
	pct := 100 * float64(v.Total) / float64(limit)
	fmt.Fprintf(&b, "\n[%s] %5.1f %% %s", bar(v.Total, limit, barW), pct, of)
	const label = 20
	rowBar := width - label - 19
	for _, p := range v.Parts {
		name := p.Name
		if p.Items > 0 && p.Name != PartSystem {
			name += " (" + strconv.Itoa(p.Items) + ")"
		}
		share := 100 * float64(p.Tokens) / float64(max(v.Total, 1))
		row := fmt.Sprintf("%-*s %8s %5.1f %% %s", label, clip(name, label), thousands(p.Tokens), share, strings.TrimRight(bar(p.Tokens, v.Total, rowBar), "░"))
		b.WriteString("\n" + strings.TrimRight(row, " "))
	}
	return b.String()
}

// bar is n of total as a bar w cells wide: █ filled, ░ empty.
func bar(n, total, w int) string {
	if w < 1 {
		return ""
	}
	fill := 0
	if total > 0 {
		fill = min(w, (n*w+total-1)/total)
	}
	return strings.Repeat("█", fill) + strings.Repeat("░", w-fill)
}

// clip cuts s to n bytes (the part names are ASCII).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
