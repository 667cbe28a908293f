package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/sandbox"
)

// TestAgentCannotDriveTheTmuxShim: the tmux that a server session puts on
// its shell panes' PATH opens panes that run commands unconfined. An
// agent's shell command, jailed, can neither find it on its PATH nor run
// it by its path in the data dir, nor reach the server through it: no
// pane opens and the command it asked for never runs. What the model
// reads says both tries failed.
func TestAgentCannotDriveTheTmuxShim(t *testing.T) {
	if !sandbox.Jailed() {
		t.Skip("commands do not run in namespaces here")
	}
	s := newSetup(t, "")
	escaped := filepath.Join(s.dirs["ws"], "escaped")
	link := filepath.Join(s.dirs["data"], "bin", "tmux")
	// By its name, by its path, and by its path with the pane's own
	// environment, which names the server's data dir and the session.
	attack := "tmux split-window -d 'touch " + escaped + "'; echo path-rc=$?; " +
		shq(link) + " split-window -d 'touch " + escaped + "'; echo link-rc=$?; " +
		"KWS_DATA_DIR=" + shq(s.dirs["data"]) + " KWS_SESSION=ws TMUX_PANE=%3 " + shq(link) + " split-window -d 'touch " + escaped + "'; echo env-rc=$?"
	args, err := json.Marshal(map[string]string{"command": attack})
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.New(t,
		providertest.Step{ToolCalls: []provider.ToolCall{{ID: "a1", Name: "shell", Arguments: string(args)}}},
		providertest.Step{Text: "tried"})
	s.env["KWS_BASE_URL"] = srv.URL()
	script, status := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	tm := startTerm(t, s.root, s.tmuxConf(), script)
	tm.waitFor("the first frame", func(sc string) bool { return len(frames(sc)) == 4 })
	if _, err := os.Stat(link); err != nil {
		t.Fatalf("the session has no tmux link to attack: %v", err)
	}
	out := s.must("", "run", "--yes", "--workspace", s.dirs["ws"], "open a pane")
	if !strings.Contains(out, "tried") {
		t.Fatalf("kws run printed:\n%s", out)
	}
	var result string
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				result = m.Content
			}
		}
	}
	if !strings.Contains(result, "path-rc=") || !strings.Contains(result, "link-rc=") || !strings.Contains(result, "env-rc=") ||
		strings.Contains(result, "-rc=0") {
		t.Fatalf("the jailed command reached the tmux shim:\n%s", result)
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Fatal("a pane ran the agent's command outside the jail")
	}
	// kws run's agent has a pane of its own; no shell pane opened.
	sc := tm.screen()
	shells := 0
	for _, f := range frames(sc) {
		if strings.Contains(f.title, " shell") {
			shells++
		}
	}
	if shells != 1 {
		t.Fatalf("a shell pane opened:\n%s", sc)
	}
	tm.endSession(status)
}
