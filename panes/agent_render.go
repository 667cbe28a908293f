package panes

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/termsafe"
)

// entryKind is what a transcript entry holds.
type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entrySystem
	entryError
	// entryQueued is a user turn waiting for the running one to end.
	entryQueued
	// entryContext is the card answering /context: what the next prompt
	// holds, drawn for the pane's width.
	entryContext
)

// entry is one item of an agent transcript. Tool entries are cards: one
// line while collapsed, the arguments and result when expanded.
type entry struct {
	kind     entryKind
	text     string
	tool     string
	callID   string
	args     string
	result   string
	isErr    bool
	done     bool
	denied   string
	expanded bool
	// vaultRef is the vault block holding a tool result the model was
	// sent as a ref: the card shows it, selectable.
	vaultRef string
	// preview is an edit's or a write's diff, which the expanded card
	// shows in place of its arguments.
	preview string
	// view is entryContext's view of the prompt.
	view *agent.ContextView

	// rendered caches the wrapped lines for width w.
	rendered []line
	width    int
}

// seg is a run of text in one style; ref is the vault id it shows, if any.
type seg struct {
	text  string
	style tcell.Style
	ref   string
}

// line is one screen row of a transcript.
type line []seg

// refPattern finds vault ids in transcript text.
var refPattern = regexp.MustCompile(`ctx:[0-9a-f]{8,16}`)

// collapsedResultLines is how much of a tool result a collapsed card shows.
const collapsedResultLines = 3

// render wraps the entry to width w, caching the result.
func (t *transcript) render(e *entry, w int) []line {
	if e.rendered != nil && e.width == w {
		return e.rendered
	}
	th := t.env.Theme
	var out []line
	add := func(prefix, text string, st tcell.Style) {
		out = append(out, wrapText(prefix, text, w, st, th.ChatRef.TCell())...)
	}
	switch e.kind {
	case entryUser:
		add("› ", e.text, th.ChatUser.TCell())
	case entryAssistant:
		if t.raw {
			add("", e.text, th.ChatAssistant.TCell())
		} else {
			out = append(out, markdown(e.text, w, th)...)
		}
	case entrySystem:
		add("· ", e.text, th.ChatSystem.TCell())
	case entryQueued:
		add("› ", e.text+"  · queued", th.ChatSystem.TCell())
	case entryError:
		add("✗ ", e.text, th.ChatToolError.TCell())
	case entryContext:
		add("· ", e.view.Render(w-2), th.ChatSystem.TCell())
	case entryTool:
		st := th.ChatTool.TCell()
		if e.isErr || e.denied != "" {
			st = th.ChatToolError.TCell()
		}
		mark := "⏺"
		if !e.done {
			mark = "◌"
		}
		if !e.expanded {
			head := mark + " " + e.tool + "  " + toolHead(e.tool, e.args, false)
			out = append(out, wrapText("", clip(head, w), w, st, th.ChatRef.TCell())[:1]...)
		} else {
			add("", mark+" "+e.tool+"  "+toolHead(e.tool, e.args, true), st)
			switch {
			case e.preview != "":
				for _, l := range strings.Split(strings.TrimRight(e.preview, "\n"), "\n") {
					add("  ", l, diffStyle(t.env, l))
				}
			case tools.OtherArgs(e.tool, e.args):
				add("  ", tools.CompactJSON(e.args), th.ChatSystem.TCell())
			}
		}
		switch {
		case e.denied != "":
			add("  ⎿ ", "denied: "+e.denied, st)
		case e.done && e.tool == "shell" && parseShellResult(e.result).ok:
			r := parseShellResult(e.result)
			if r.stdout != "" || r.stderr == "" {
				add("  ⎿ ", collapse(r.stdout, e.expanded, t.keyName("expand")), st)
			}
			if r.stderr != "" {
				add("  ⎿ ", "stderr: "+collapse(r.stderr, e.expanded, t.keyName("expand")), th.ChatToolError.TCell())
			}
			if r.exit != 0 {
				add("  ⎿ ", fmt.Sprintf("exit %d", r.exit), th.ChatToolError.TCell())
			}
			if r.notes != "" {
				add("  ⎿ ", r.notes, th.ChatSystem.TCell())
			}
		case e.done:
			add("  ⎿ ", collapse(e.result, e.expanded, t.keyName("expand")), st)
		}
		if e.vaultRef != "" {
			add("  ⎿ ", "exact output in the vault: "+e.vaultRef+" ("+t.keyName("next-ref")+" selects, "+t.keyName("send")+" opens)", th.ChatSystem.TCell())
		}
	}
	out = append(out, line{})
	e.rendered, e.width = out, w
	return out
}

// collapse shortens a tool result for a collapsed card: its first lines,
// then every line holding a vault ref (so refs stay selectable), then how
// many lines are hidden.
func collapse(res string, expanded bool, expandKey string) string {
	lines := strings.Split(strings.TrimRight(res, "\n"), "\n")
	if expanded || len(lines) <= collapsedResultLines {
		return res
	}
	keep := append([]string(nil), lines[:collapsedResultLines]...)
	for _, l := range lines[collapsedResultLines:] {
		if refPattern.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n") + "\n… " + strconv.Itoa(len(lines)-len(keep)) + " more lines (" + expandKey + " expands)"
}

// keyName is the key shown for the pane's action name.
func (p *AgentPane) keyName(action string) string {
	for _, a := range p.keys.Actions() {
		if a.Name == action && len(a.Keys) > 0 {
			return a.Keys[0].String()
		}
	}
	return action
}

// wrapText turns text into rows of at most w columns, the first starting
// with prefix and the rest indented to match. Escape sequences and control
// characters are removed first; vault ids become ref segments.
func wrapText(prefix, text string, w int, st, refStyle tcell.Style) []line {
	text = termsafe.Strip(text)
	indent := strings.Repeat(" ", runewidth.StringWidth(prefix))
	var out []line
	for i, para := range strings.Split(text, "\n") {
		lead := indent
		if i == 0 {
			lead = prefix
		}
		para = strings.ReplaceAll(para, "\t", "    ")
		rows := wrapRow(lead+para, w, len(indent))
		for _, r := range rows {
			out = append(out, refSegs(r, st, refStyle))
		}
	}
	return out
}

// wrapRow breaks s into rows of width w at spaces where it can, hard
// otherwise; continuation rows are indented by ind columns.
func wrapRow(s string, w, ind int) []string {
	if w <= ind+1 {
		return []string{s}
	}
	var rows []string
	first := true
	for {
		limit := w
		if !first {
			limit = w - ind
		}
		if runewidth.StringWidth(s) <= limit {
			break
		}
		cut, width, lastSpace := 0, 0, -1
		for i, r := range s {
			rw := runewidth.RuneWidth(r)
			if width+rw > limit {
				cut = i
				break
			}
			if r == ' ' {
				lastSpace = i
			}
			width += rw
		}
		if lastSpace > 0 && lastSpace > cut/2 {
			cut = lastSpace + 1
		}
		row := s[:cut]
		if !first {
			row = strings.Repeat(" ", ind) + row
		}
		rows = append(rows, strings.TrimRight(row, " "))
		s, first = s[cut:], false
	}
	if !first {
		s = strings.Repeat(" ", ind) + s
	}
	return append(rows, s)
}

// refSegs splits a row into plain and ref segments.
func refSegs(row string, st, refStyle tcell.Style) line {
	var l line
	at := 0
	for _, m := range refPattern.FindAllStringIndex(row, -1) {
		if m[0] > at {
			l = append(l, seg{text: row[at:m[0]], style: st})
		}
		l = append(l, seg{text: row[m[0]:m[1]], style: refStyle, ref: row[m[0]:m[1]]})
		at = m[1]
	}
	if at < len(row) {
		l = append(l, seg{text: row[at:], style: st})
	}
	return l
}

// clip shortens s to w columns with an ellipsis.
func clip(s string, w int) string {
	if runewidth.StringWidth(s) <= w {
		return s
	}
	return runewidth.Truncate(s, w, "…")
}
