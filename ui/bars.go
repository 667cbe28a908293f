package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/themes"
)

// Status is what the status bar shows.
type Status struct {
	Workspace string
	Model     string
	Agents    []AgentStatus
	// NaiveTokens and SentTokens are summed over every agent's calls.
	NaiveTokens, SentTokens int
	// Warning, when set, is shown in the error style after the name
	// ("unsandboxed" when shell commands cannot be confined).
	Warning string
	// MemoryPending is how many memory candidates wait for the user's
	// approval in the memory pane.
	MemoryPending int
	// Reembed is the memory's background re-embedding after its
	// embedder changed.
	Reembed Reembed
	// MCPFailed of MCPServers configured MCP servers are failed or
	// refused: the bar shows it for as long as it lasts.
	MCPFailed, MCPServers int
}

// Reembed is the progress of the memory's background re-embedding: Done
// of Total memories while Running; Failed when it stopped on an error,
// which the memory pane spells out.
type Reembed struct {
	Done, Total int
	Running     bool
	Failed      bool
}

// AgentStatus is one agent's state as its loop reports it.
type AgentStatus struct {
	Name   string
	State  string
	Detail string
	Busy   bool
}

// statusBar shows the workspace, the model, every agent's state, the token
// totals and the latest notice.
type statusBar struct {
	*tview.Box
	app *App
}

// stateMarks are the symbols before an agent's state.
var stateMarks = map[string]string{
	"idle": "○", "thinking": "◐", "tool": "⚙", "approval": "‼", "error": "✗", "offline": "∅", "paused": "⏸",
}

// Draw paints the bar.
func (s *statusBar) Draw(screen tcell.Screen) {
	x, y, w, _ := s.GetRect()
	th := s.app.cfg.Theme
	bar := th.StatusBar.TCell()
	fillRow(screen, x, y, w, bar)
	st := s.app.cfg.Status()
	// The notice is drawn first, at the right, so nothing crowds it out
	// (it carries the id of a block just kept); the rest fills what is left.
	right := x + w
	if n := s.app.currentNotice(); n != "" {
		n = " " + pane.FitWords(n, w-w/4-2) + " "
		right = x + w - runewidth.StringWidth(n)
		drawText(screen, right, y, x+w-right, n, th.HintKey.TCell())
	}
	segs := s.segments(st)
	col := x
	for _, sg := range segs {
		room := right - 1 - col
		text := sg.text
		if runewidth.StringWidth(text) > room {
			text = sg.short
		}
		if text == "" || runewidth.StringWidth(text) > room {
			// What does not fit whole, even in its short form, ends the
			// bar with "…": a word is never cut.
			drawText(screen, col, y, max(0, room), "…", bar)
			return
		}
		col += drawText(screen, col, y, room, text, sg.style)
	}
}

// segment is one part of the status bar: its text and, for a part that
// can be shown shorter when space runs out, the short form.
type segment struct {
	text, short string
	style       tcell.Style
}

// segments are the status bar's parts from left to right.
func (s *statusBar) segments(st Status) []segment {
	th := s.app.cfg.Theme
	bar := th.StatusBar.TCell()
	var out []segment
	put := func(text, short string, style tcell.Style) {
		out = append(out, segment{text: text, short: short, style: style})
	}
	if s.app.pending {
		put(" "+s.app.prefixName()+" ", "", th.HintKey.TCell().Reverse(true))
	}
	var waiting []string
	for _, ag := range st.Agents {
		if ag.State == "approval" {
			waiting = append(waiting, ag.Name)
		}
	}
	// Other panes whose program asked for the user (another agent CLI in
	// a shell pane) by their number, with their window's when there are
	// several.
	for _, lf := range s.app.allLeaves() {
		if lf.pane.Kind() != pane.KindAgent && needsYou(lf.pane) {
			waiting = append(waiting, "pane "+s.app.paneName(lf))
		}
	}
	if len(waiting) > 0 {
		key := s.app.prefixName() + " " + s.app.actionKey("next-waiting")
		put(" ‼ "+strings.Join(waiting, ", ")+" need"+map[bool]string{true: "s", false: ""}[len(waiting) == 1]+" you ("+key+") ",
			" ‼ "+key+" ", th.StatusAgentWaiting.TCell().Reverse(true))
	}
	if st.MemoryPending > 0 {
		put(fmt.Sprintf(" mem: %d pending (%s m) ", st.MemoryPending, s.app.prefixName()), fmt.Sprintf(" mem: %d ", st.MemoryPending),
			th.StatusAgentWaiting.TCell())
	}
	switch re := st.Reembed; {
	case re.Failed:
		put(fmt.Sprintf(" mem: re-embed failed (%s m) ", s.app.prefixName()), " mem: failed ", th.StatusAgentError.TCell())
	case re.Running:
		put(fmt.Sprintf(" mem: re-embedding %d/%d ", re.Done, re.Total), fmt.Sprintf(" mem: %d/%d ", re.Done, re.Total),
			th.StatusAgentThinking.TCell())
	}
	if st.MCPFailed > 0 {
		put(fmt.Sprintf(" mcp: %d/%d failed (%s :mcp) ", st.MCPFailed, st.MCPServers, s.app.prefixName()), " mcp! ",
			th.StatusAgentError.TCell())
	}
	put(" kws ", "", th.TitleFocused.TCell().Background(th.StatusBar.Bg))
	s.windowSegments(put)
	if st.Warning != "" {
		put(" ⚠ "+st.Warning+" ", " ⚠ ", th.StatusAgentError.TCell().Reverse(true))
	}
	if st.Workspace != "" {
		put("│ "+filepath.Base(st.Workspace)+" ", "", bar)
	}
	model := st.Model
	if model == "" {
		model = "no model"
	}
	put("│ "+model+" ", "", bar)
	if len(st.Agents) > 0 {
		put("│", "", bar)
	}
	for _, ag := range st.Agents {
		label := " " + ag.Name + " " + stateMarks[ag.State] + " " + ag.State
		if ag.State == "tool" && ag.Detail != "" {
			label += ":" + ag.Detail
		}
		put(label+" ", " "+ag.Name+" "+stateMarks[ag.State]+" ", agentStyle(th, ag.State))
	}
	if st.NaiveTokens > 0 {
		saved := 100 * float64(st.NaiveTokens-st.SentTokens) / float64(st.NaiveTokens)
		put(fmt.Sprintf("│ sent %s of %s · saved %.1f%% ", human(st.SentTokens), human(st.NaiveTokens), saved),
			fmt.Sprintf("│ saved %.1f%% ", saved), th.StatsSaved.TCell().Background(th.StatusBar.Bg))
	}
	return out
}

// windowSegments put the window list, as tmux's status line shows it:
// each window's number and name, "*" on the one shown, "-" on the one
// shown before, "Z" when zoomed, "‼" when a pane of it waits for the user.
// Shortened, a window keeps its number and marks. A single window is not
// listed: the bar's room goes to the agents until there is a choice.
func (s *statusBar) windowSegments(put func(text, short string, style tcell.Style)) {
	th := s.app.cfg.Theme
	if len(s.app.windows) < 2 {
		return
	}
	for i, w := range s.app.windows {
		flags := ""
		if w == s.app.layout.window {
			flags += "*"
		} else if w == s.app.lastWin {
			flags += "-"
		}
		if w.tree.zoomed != nil {
			flags += "Z"
		}
		style := th.StatusBar.TCell()
		switch {
		case w.waiting():
			flags += "‼"
			style = th.StatusAgentWaiting.TCell()
		case w == s.app.layout.window:
			style = th.TitleFocused.TCell().Background(th.StatusBar.Bg)
		}
		prefix := ""
		if i == 0 {
			prefix = "│ "
		}
		put(fmt.Sprintf("%s%d:%s%s ", prefix, i, w.displayName(), flags), fmt.Sprintf("%s%d%s ", prefix, i, flags), style)
	}
}

// agentStyle is the status-bar style of an agent state.
func agentStyle(th *themes.Theme, state string) tcell.Style {
	switch state {
	case "thinking":
		return th.StatusAgentThinking.TCell()
	case "tool":
		return th.StatusAgentTool.TCell()
	case "approval":
		return th.StatusAgentWaiting.TCell()
	case "error", "offline":
		return th.StatusAgentError.TCell()
	}
	return th.StatusAgentIdle.TCell()
}

// hintsBar shows the focused pane's visible keys, or the prefix table's
// after Ctrl-b.
type hintsBar struct {
	*tview.Box
	app *App
}

// Draw paints the bar.
func (h *hintsBar) Draw(screen tcell.Screen) {
	x, y, w, _ := h.GetRect()
	th := h.app.cfg.Theme
	fillRow(screen, x, y, w, th.HintText.TCell())
	var hints []keymap.Hint
	if h.app.pending {
		hints = h.app.prefix.Hints()
	} else {
		if f := h.app.Focused(); f != nil {
			hints = f.Keys().Hints()
			if ph, ok := f.(pane.PrefixHinter); ok {
				for _, name := range ph.PrefixHints() {
					for _, act := range h.app.prefix.Actions() {
						if act.Name == name && len(act.Keys) > 0 {
							hints = append(hints, keymap.Hint{Key: h.app.prefixName() + " " + act.Keys[0].String(), Desc: act.Name})
						}
					}
				}
			}
		}
	}
	// The way to help comes first: it must never be crowded out.
	pk := h.app.prefixName()
	if !h.app.pending {
		hints = append([]keymap.Hint{{Key: pk + " ?", Desc: "help"}}, hints...)
	}
	col := x + 1
	for _, hint := range hints {
		need := runewidth.StringWidth(hint.Key) + runewidth.StringWidth(hint.Desc) + 3
		if col+need > x+w {
			break
		}
		col += drawText(screen, col, y, x+w-col, hint.Key, th.HintKey.TCell())
		col += drawText(screen, col, y, x+w-col, " "+hint.Desc+"  ", th.HintText.TCell())
	}
}

// fillRow paints one row of w cells.
func fillRow(screen tcell.Screen, x, y, w int, st tcell.Style) {
	for i := range w {
		screen.SetContent(x+i, y, ' ', nil, st)
	}
}

// drawText draws s literally (control characters and escape sequences
// removed) clipped to w columns and returns the columns used.
func drawText(screen tcell.Screen, x, y, w int, s string, st tcell.Style) int {
	return pane.Put(screen, x, y, w, termsafe.OneLine(s), st)
}

// human formats a count as 950, 12.3k or 4.56M.
func human(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e3), ".0") + "k"
	}
	return fmt.Sprintf("%.2fM", float64(n)/1e6)
}
