package e2e

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestTmuxVerbsFromAShellPane: a program in a kws shell pane drives its
// session with tmux's verbs through the kws command, as it would drive
// tmux: list-panes, display-message -p, split-window -h, send-keys to
// another pane and capture-pane -p of it, select-layout. What each does
// shows on the real terminal.
func TestTmuxVerbsFromAShellPane(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	script, status := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	tm := startTerm(t, s.root, s.tmuxConf(), script)
	tm.waitFor("the shell's prompt", func(sc string) bool { return strings.Contains(boxText(sc, "1 shell"), "$") })
	kws := shq(s.kws) + " --data-dir " + shq(s.dirs["data"])
	run := func(line string) {
		t.Helper()
		tm.typeText(line)
		tm.keys("Enter")
	}
	tm.keys("C-b", "q", "1")
	run(kws + " list-panes")
	tm.waitFor("list-panes's output", func(sc string) bool {
		shell := boxText(sc, "1 shell")
		return strings.Contains(shell, "0: agent-1") && strings.Contains(shell, "(active)") && strings.Contains(shell, "3: stats")
	})
	run("clear; " + kws + " display-message -p 'session=#{session_name} pane=#{pane_id}'")
	tm.waitFor("display-message's output", func(sc string) bool {
		return strings.Contains(boxText(sc, "1 shell"), "session=ws pane=%3") // the agent, the vault, then the shell opened
	})
	run("clear; " + kws + " split-window -h")
	tm.waitFor("a fifth pane", func(sc string) bool { return len(frames(sc)) == 5 })
	// The new shell is pane 2; the verbs reach it from pane 1.
	tm.keys("C-b", "q", "1")
	run("clear; " + kws + " send-keys -t 2 'echo sent-by-$((40+2))' Enter")
	tm.waitFor("the keys in pane 2", func(sc string) bool { return strings.Contains(sc, "sent-by-42") })
	run("clear; " + kws + " capture-pane -p -t 2 | grep -c '^sent-by-42$' | sed 's/^/captured=/'")
	tm.waitFor("capture-pane's output", func(sc string) bool {
		return strings.Contains(boxText(sc, "1 shell"), "captured=1")
	})
	run(kws + " select-layout even-horizontal")
	tm.waitFor("the panes side by side", func(sc string) bool {
		return len(frames(sc)) == 5 && strings.Count(strings.Split(sc, "\n")[0], "┌") == 5
	})
	run("clear; " + kws + " select-layout nonsense; echo status=$?")
	tm.waitFor("a refused layout", func(sc string) bool {
		// The narrow pane wraps the message (and a row loses its
		// trailing space).
		shell := strings.Join(rowsOf(sc, "1 shell"), "")
		return strings.Contains(shell, `kws: select-layout: no layout`) && strings.Contains(shell, `"nonsense" (layouts: even-horizontal`) &&
			strings.Contains(shell, "status=1")
	})
	tm.endSession(status)
}
