package panes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/agent"
)

// mdAnswer is an answer as models write them: a heading, emphasis, a
// list, a snake_case name, a fenced block, a vault ref and an escape.
const mdAnswer = "## Plan\n" +
	"I read **NOTES.md** and *then* the `parse_line` helper in handler_59.\n\n" +
	"- fix the off-by-one in `split_words`, which every caller of the tokenizer reaches through a long chain of helpers\n" +
	"- keep the log: ctx:5f2a9c1e7b3d\n" +
	"1. run the tests\n\n" +
	"```python\n" +
	"def parse_line(s):\n" +
	"    return s.split(\"**\")  # not bold \x1b[2J\n" +
	"```\n" +
	"> done\n"

// TestAnswersRenderMarkdown: an answer's Markdown is drawn rendered
// (no ** or #, bold and italic cells, bullets, the code block behind a
// bar with its language), escapes are still removed, refs stay
// selectable, and Ctrl-t shows the text as the model wrote it (issue 26,
// item 7).
func TestAnswersRenderMarkdown(t *testing.T) {
	p, _, opened := newAgentPane(t)
	loop(p, agent.Event{Type: agent.EvTextDelta, Text: mdAnswer})
	loop(p, agent.Event{Type: agent.EvDone})
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		golden(t, fmt.Sprintf("agent_markdown_%dx%d", size[0], size[1]), screenText(render(t, p, size[0], size[1])))
	}
	scr := render(t, p, 80, 24)
	text := screenText(scr)
	for _, gone := range []string{"**NOTES", "## Plan", "```", "*then*", "`parse_line`", "\x1b"} {
		if strings.Contains(text, gone) {
			t.Errorf("the rendered answer shows %q:\n%s", gone, text)
		}
	}
	for _, want := range []string{"Plan", "I read NOTES.md and then the parse_line helper in handler_59.", "• fix the off-by-one", "\n  through a long chain of helpers", "• keep the log: ctx:5f2a9c1e7b3d", "1. run the tests", "python", "▎ def parse_line(s):", `▎     return s.split("**")  # not bold`, "│ done"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered answer lacks %q:\n%s", want, text)
		}
	}
	if st := styleOf(scr, "NOTES.md"); !hasAttr(st, tcell.AttrBold) {
		t.Errorf("**NOTES.md** is not bold")
	}
	if st := styleOf(scr, "then"); !hasAttr(st, tcell.AttrItalic) {
		t.Errorf("*then* is not italic")
	}
	if st := styleOf(scr, "handler_59"); hasAttr(st, tcell.AttrItalic) {
		t.Errorf("the _ of handler_59 began italics")
	}
	key(p, tcell.KeyTab, 0, 0)
	key(p, tcell.KeyEnter, 0, 0)
	if len(*opened) != 1 || (*opened)[0] != "ctx:5f2a9c1e7b3d" {
		t.Errorf("the ref in a list item opened %v", *opened)
	}
	key(p, tcell.KeyCtrlT, 0, tcell.ModCtrl)
	raw := screenText(render(t, p, 80, 24))
	if !strings.Contains(raw, "I read **NOTES.md** and *then*") || !strings.Contains(raw, "```python") || strings.Contains(raw, "\x1b") {
		t.Errorf("Ctrl-t does not show the answer as written:\n%s", raw)
	}
	key(p, tcell.KeyCtrlT, 0, tcell.ModCtrl)
	if again := screenText(render(t, p, 80, 24)); again != text {
		t.Errorf("Ctrl-t twice does not render it again:\n%s", again)
	}
}

// styleOf is the style of the first cell of the first place s is drawn.
func styleOf(scr tcell.SimulationScreen, s string) tcell.Style {
	cells, w, h := scr.GetContents()
	for y := range h {
		var row strings.Builder
		var xs []int
		for x := range w {
			c := cells[y*w+x]
			for _, r := range c.Runes {
				row.WriteRune(r)
				xs = append(xs, x)
			}
		}
		if i := strings.Index(row.String(), s); i >= 0 {
			return cells[y*w+xs[len([]rune(row.String()[:i]))]].Style
		}
	}
	return tcell.StyleDefault
}

func hasAttr(st tcell.Style, a tcell.AttrMask) bool {
	_, _, attrs := st.Decompose()
	return attrs&a != 0
}

// TestMarkdownHeadings: a heading loses its opening #s and a closing
// run of them, never a # that is part of its text.
func TestMarkdownHeadings(t *testing.T) {
	p, _, _ := newAgentPane(t)
	for in, want := range map[string]string{"# Title": "Title", "### Use C#": "Use C#", "## Plan ##": "Plan", "#hashtag": "#hashtag"} {
		rows := markdown(in, 40, p.env.Theme)
		var got strings.Builder
		for _, s := range rows[0] {
			got.WriteString(s.text)
		}
		if got.String() != want {
			t.Errorf("%q drawn as %q, want %q", in, got.String(), want)
		}
	}
}
