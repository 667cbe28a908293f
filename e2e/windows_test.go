package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// statusLine is the screen's last non-empty row: kws's status bar.
func statusLine(sc string) string { return lastLine(strings.Split(sc, "\n")) }

// TestWindowsInARealTerminal: a tmux user's windows in a real terminal.
// C-b c opens a window with a shell; in it, the kws command lists,
// renames and opens windows as tmux's verbs do; the status bar lists
// them; C-b w shows the tree; C-b 0 goes back; C-b $ renames the session;
// and after kill -9 of the server the next kws brings every window back,
// names included, in the session of the new name.
func TestWindowsInARealTerminal(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	shell := s.shellScript()
	script, firstStatus := s.script("--workspace", s.dirs["ws"], "--shell", shell)
	tm := startTerm(t, s.root, s.tmuxConf(), script)
	tm.waitFor("the first frame", func(sc string) bool { return strings.Contains(sc, "┌ 3 stats") })
	launcher, _ := tm.paneState()
	firstPID := childPID(t, launcher)
	kws := shq(s.kws) + " --data-dir " + shq(s.dirs["data"])
	run := func(line string) {
		t.Helper()
		tm.typeText(line)
		tm.keys("Enter")
	}

	tm.keys("C-b", "c")
	tm.waitFor("a window with one shell, full width", func(sc string) bool {
		return len(frames(sc)) == 1 && strings.Contains(sc, "┌ 0 shell") && strings.Contains(statusLine(sc), "0:agent-1- 1:")
	})
	tm.waitFor("the new shell's prompt", func(sc string) bool { return lastLine(rowsOf(sc, "0 shell")) == "$" })
	run(kws + " list-windows")
	tm.waitFor("list-windows's output", func(sc string) bool {
		shell := boxText(sc, "0 shell")
		return strings.Contains(shell, "0: agent-1 (4 panes)") && strings.Contains(shell, "* (1 panes) (active)")
	})
	run("clear; " + kws + " rename-window build")
	tm.waitFor("the renamed window in the status bar", func(sc string) bool { return strings.Contains(statusLine(sc), "1:build*") })
	run(kws + " new-window -n logs")
	tm.waitFor("a third window", func(sc string) bool {
		return strings.Contains(statusLine(sc), "0:agent-1 1:build- 2:logs*")
	})
	tm.keys("C-b", "w")
	tm.waitFor("the tree of windows", func(sc string) bool {
		return strings.Contains(sc, "0: agent-1 (4 panes)") && strings.Contains(sc, "0.3 stats") && strings.Contains(sc, "2: logs* (1 pane)")
	})
	tm.keys("Escape", "C-b", "0")
	tm.waitFor("window 0 again", func(sc string) bool {
		return strings.Contains(sc, "┌ 0 agent-1") && strings.Contains(sc, "┌ 3 stats") && strings.Contains(statusLine(sc), "0:agent-1* 1:build 2:logs-")
	})

	// C-b $ renames the session; kws ls and the verbs of the shells
	// started before know it by the new name.
	tm.keys("C-b", "$", "C-u")
	tm.typeText("work")
	tm.keys("Enter")
	tm.waitFor("the rename said", func(sc string) bool { return strings.Contains(statusLine(sc), "session renamed work") })
	if ls := s.must("", "ls"); !strings.Contains(ls, "work: ") || strings.Contains(ls, "ws: ") {
		t.Errorf("kws ls after the rename:\n%s", ls)
	}
	tm.keys("C-b", "1")
	run("clear; " + kws + " display-message -p 'in #{session_name} window #{window_index} #{window_name}'")
	tm.waitFor("display-message's output", func(sc string) bool {
		return strings.Contains(boxText(sc, "0 shell"), "in work window 1 build")
	})
	tm.keys("C-b", "0")

	// The journal has the windows once it shows window 0 (its index
	// is left out).
	waitUntil(t, "the windows in the journal", func() bool {
		b, _ := os.ReadFile(filepath.Join(s.dirs["data"], "server", "sessions", "work.json"))
		return strings.Contains(string(b), `"name":"logs"`) && !strings.Contains(string(b), `"window":`)
	})
	if err := syscall.Kill(s.serverPID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The next kws starts once the server is gone: its client exits 1
	// when the killed server's socket closes. A kws started before would
	// reach the dying server.
	if code, sc := tm.waitExit(firstPID, firstStatus); code != "1" {
		t.Fatalf("kws exited %s after its server was killed; screen:\n%s", code, sc)
	}
	again, status := s.script("--workspace", s.dirs["ws"], "--shell", shell)
	tm.must("respawn-pane", "-k", "-t", "kws", again)
	tm.waitFor("the windows restored", func(sc string) bool {
		return strings.Contains(sc, "┌ 0 agent-1") && strings.Contains(statusLine(sc), "0:agent-1* 1:build 2:logs")
	})
	tm.keys("C-b", "1")
	tm.waitFor("the build window's shell", func(sc string) bool {
		return len(frames(sc)) == 1 && strings.Contains(sc, "┌ 0 shell") && strings.Contains(statusLine(sc), "1:build*")
	})
	tm.endSession(status)
}
