package panes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/panes/keymap"
)

// TestEmptyAgentPaneWelcomes: an agent pane with nothing in its
// transcript shows who it is and a few tips, at 80×24, 160×48 and in a
// 38-column split without a cut word, naming a rebound key as it is bound
// now; the first turn replaces the welcome (issue 26, item 12).
func TestEmptyAgentPaneWelcomes(t *testing.T) {
	p, fa, _ := newAgentPane(t)
	fa.info.Role = "tester"
	if err := p.keys.Rebind("open-ref", []keymap.Key{keymap.MustParse("Ctrl-y")}); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		golden(t, fmt.Sprintf("agent_welcome_%dx%d", size[0], size[1]), screenText(render(t, p, size[0], size[1])))
	}
	narrow := screenText(render(t, p, 38, 20))
	if !strings.Contains(narrow, "agent-1 (tester) is ready") || strings.Contains(narrow, "…") {
		t.Errorf("at 38 columns the welcome is cut:\n%s", narrow)
	}
	if wide := screenText(render(t, p, 160, 48)); !strings.Contains(wide, "C-y opens its exact text") {
		t.Errorf("the welcome does not name the rebound key:\n%s", wide)
	}
	loop(p, agent.Event{Type: agent.EvTextDelta, Text: "hello there"})
	text := screenText(render(t, p, 80, 24))
	if strings.Contains(text, "is ready") || !strings.Contains(text, "hello there") {
		t.Errorf("the first turn left the welcome:\n%s", text)
	}
}

// TestPromptPlaceholderFits: the empty prompt's placeholder names the
// newline key where it fits and is never cut (issue 26, item 12).
func TestPromptPlaceholderFits(t *testing.T) {
	p, _, _ := newAgentPane(t)
	for _, tc := range []struct {
		w    int
		want string
	}{{80, "› ask agent-1; Alt-Enter: new line"}, {30, "› ask agent-1"}} {
		text := screenText(render(t, p, tc.w, 10))
		rows := strings.Split(strings.TrimRight(text, "\n"), "\n")
		if last := strings.TrimRight(rows[len(rows)-1], " "); last != tc.want {
			t.Errorf("at %d columns the prompt row is %q, want %q", tc.w, last, tc.want)
		}
	}
}

// TestScrolledTranscriptSaysWhatIsBelow: scrolled up, the agent pane says
// how many lines are below and the key that goes back; at the bottom it
// says nothing (issue 26, item 12).
func TestScrolledTranscriptSaysWhatIsBelow(t *testing.T) {
	p, _, _ := newAgentPane(t)
	for i := range 60 {
		loop(p, agent.Event{Type: agent.EvTextDelta, Text: fmt.Sprintf("line %d\n", i)})
	}
	if text := screenText(render(t, p, 80, 24)); strings.Contains(text, "more lines") {
		t.Fatalf("at the bottom the pane shows a scroll mark:\n%s", text)
	}
	key(p, tcell.KeyPgUp, 0, 0)
	text := screenText(render(t, p, 80, 24))
	if !strings.Contains(text, "more lines (PgDn)") {
		t.Fatalf("scrolled up, the pane does not say what is below:\n%s", text)
	}
	key(p, tcell.KeyPgDn, 0, 0)
	if text := screenText(render(t, p, 80, 24)); strings.Contains(text, "more lines") {
		t.Fatalf("back at the bottom the mark stays:\n%s", text)
	}
}
