package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestMultiLinePromptReachesTheModel: in a real terminal, Alt-Enter puts
// a line break in the agent's prompt, a long paste (tmux paste-buffer -p,
// bracketed as a terminal pastes) shows as one placeholder, and Enter
// sends the whole prompt; the model's request holds every line, exactly.
func TestMultiLinePromptReachesTheModel(t *testing.T) {
	srv := providertest.New(t)
	srv.Push(providertest.Step{Text: "got all of it"})
	s := newSetup(t, srv.URL())
	script, status := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	tm := startTerm(t, s.root, s.tmuxConf(), script)
	tm.waitFor("the first frame", func(sc string) bool { return strings.Contains(sc, "┌ 0 agent-1") })
	var trace []string
	for i := range 12 {
		trace = append(trace, "  File \"app.py\", line "+strings.Repeat("7", i%3+1)+", in step_"+string(rune('a'+i)))
	}
	buf := filepath.Join(s.root, "paste.txt")
	if err := os.WriteFile(buf, []byte(strings.Join(trace, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.typeText("first line")
	tm.keys("M-Enter")
	tm.typeText("then the trace: ")
	tm.must("load-buffer", buf)
	tm.must("paste-buffer", "-p", "-t", "kws")
	tm.waitFor("the placeholder", func(sc string) bool {
		return strings.Contains(boxText(sc, "0 agent-1"), "[Pasted text #1 +12 lines]") &&
			strings.Contains(boxText(sc, "0 agent-1"), "› first line")
	})
	tm.keys("Enter")
	tm.waitFor("the answer", func(sc string) bool { return strings.Contains(sc, "got all of it") })
	want := "first line\nthen the trace: " + strings.Join(trace, "\n")
	var got string
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "user" && strings.Contains(m.Content, "first line") {
				got = m.Content
			}
		}
	}
	if !strings.Contains(got, want) {
		t.Fatalf("the model got %q, want it to hold %q", got, want)
	}
	tm.endSession(status)
}
