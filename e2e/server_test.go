package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestServer drives the server as tmux users would: a slow task keeps
// running after C-b d, kws ls shows it, kws attach shows its answer; two
// clients see one session; blocks put from a shell pane and from outside
// land in the one vault and show in the vault pane; after kill -9 of the
// server the next kws restores the layout, the transcript (its cut turn
// resumed) and the shell in its directory; kws run adds an agent to the
// session; ending the session stops the server.
func TestServer(t *testing.T) {
	slow, cut := make(chan struct{}), make(chan struct{})
	defer close(cut)
	srv := providertest.New(t,
		providertest.Step{Text: "slow answer done", Hold: slow, Match: lastUser("e2e slow task")},
		providertest.Step{Text: "never sent", Hold: cut, Match: lastUser("e2e killed task")},
		providertest.Step{Text: "resumed after the crash"},
		providertest.Step{Text: "run answer", Match: lastUser("e2e run task")},
	)
	s := newSetup(t, srv.URL())
	if err := os.Mkdir(filepath.Join(s.dirs["ws"], "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	shell := s.shellScript()
	conf := s.tmuxConf()
	first, status := s.script("--workspace", s.dirs["ws"], "--shell", shell)
	tm := startTerm(t, s.root, conf, first)
	tm.waitFor("the first frame", func(sc string) bool {
		return strings.Contains(sc, "┌ 0 agent-1") && strings.Contains(sc, "┌ 3 stats")
	})
	launcher, _ := tm.paneState()
	pid := childPID(t, launcher)
	// What kws writes is recorded (across respawns): tmux may not draw the
	// last line of a pane whose program has just exited.
	written := filepath.Join(s.root, "written")
	tm.must("pipe-pane", "-o", "-t", "kws", "cat >>"+shq(written))

	step(t, "repaint", func(t *testing.T) {
		// A client that attaches is painted whole by the server; the
		// first client was drawn frame by frame from the start: both show
		// the same cells, colours and all.
		tm.t = t
		dir := filepath.Join(s.root, "r")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		late := startTerm(t, dir, conf, mustScript(s, "attach", "-t", "ws"))
		late.waitFor("the session in the second client", func(sc string) bool { return strings.Contains(sc, "┌ 3 stats") })
		styled := func(c *term) string { return c.must("capture-pane", "-e", "-p", "-t", "kws") }
		waitUntil(t, "the same screen, with its colours, in both clients", func() bool { return styled(tm) == styled(late) },
			func() string { return "first:\n" + styled(tm) + "\nsecond:\n" + styled(late) })
		late.must("kill-server")
		waitUntil(t, "the second client gone", func() bool { return strings.Contains(s.must("", "ls"), "(attached: 1)") })
	})

	step(t, "detach", func(t *testing.T) {
		tm.t = t
		tm.keys("C-b", "q", "0")
		tm.typeText("e2e slow task")
		tm.keys("Enter")
		srv.WaitRequests(1, waitTimeout)
		// The thin client started the server and handed it the API key on
		// a pipe: the model gets the key, the server's environment does not
		// hold it.
		if !srv.Requests()[0].Bearer {
			t.Error("the model got no API key from the server the thin client started")
		}
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.serverPID()))
		if err != nil || !strings.Contains(string(environ), "KWS_BASE_URL=") || strings.Contains(string(environ), "e2e-key") {
			t.Errorf("the server's environment (%v): %q", err, environ)
		}
		tm.waitFor("agent-1 thinking", func(sc string) bool { return strings.Contains(sc, "┌ 0 agent-1 · thinking") })
		tm.keys("C-b", "d")
		code, sc := tm.waitExit(pid, status)
		if code != "0" || strings.Contains(sc, "┌") {
			t.Fatalf("kws exited %s after C-b d; screen:\n%s", code, sc)
		}
		waitUntil(t, "the detached message", func() bool {
			b, _ := os.ReadFile(written)
			return strings.Contains(string(b), "[detached (from session ws)]")
		})
		const modes = "#{alternate_on} #{mouse_any_flag} #{keypad_cursor_flag}"
		if got := strings.TrimSpace(tm.must("display-message", "-p", "-t", "kws", modes)); got != "0 0 0" {
			t.Errorf("terminal modes after detaching (%s) = %q, want \"0 0 0\"", modes, got)
		}
		if ls := s.must("", "ls"); !strings.Contains(ls, "ws: ") || !strings.Contains(ls, "agent-1    thinking") || !strings.Contains(ls, "(detached)") {
			t.Errorf("kws ls while the task runs detached:\n%s", ls)
		}
		// The model answers while nobody is attached.
		close(slow)
		waitUntil(t, "agent-1 idle in kws ls", func() bool { return strings.Contains(s.must("", "ls"), "agent-1    idle") })
	})

	if id := strings.TrimSpace(s.must("e2e outside block\n", "vault", "put")); !strings.HasPrefix(id, "ctx:") {
		t.Fatalf("kws vault put while detached printed %q, want an id", id)
	}
	attach, attached := s.script("attach")
	tm.must("respawn-pane", "-k", "-t", "kws", attach)
	step(t, "attach", func(t *testing.T) {
		tm.t = t
		tm.waitFor("the answer given while detached, and the block put from outside", func(sc string) bool {
			return strings.Contains(boxText(sc, "0 agent-1"), "slow answer done") && strings.Contains(boxText(sc, "2 vault"), "first=e2e outside")
		})
	})

	step(t, "two clients", func(t *testing.T) {
		tm.t = t
		if err := os.Mkdir(filepath.Join(s.root, "b"), 0o700); err != nil {
			t.Fatal(err)
		}
		other := startTerm(t, filepath.Join(s.root, "b"), conf, mustScript(s, "attach", "-t", "ws"))
		other.waitFor("the session in the second client", func(sc string) bool { return strings.Contains(sc, "┌ 0 agent-1") })
		tm.keys("C-b", "q", "1")
		tm.waitFor("the shell prompt", func(sc string) bool { return lastLine(rowsOf(sc, "1 shell")) == "$" })
		tm.typeText("cd sub && echo twin-$((2*3))")
		tm.keys("Enter")
		for _, c := range []*term{tm, other} {
			c.waitFor("the typing in both clients", func(sc string) bool { return contains(rowsOf(sc, "1 shell"), "twin-6") })
		}
		// A kws typed in the pane reaches this server and vault.
		tm.typeText("echo e2e pane block | " + shq(s.kws) + " vault put")
		tm.keys("Enter")
		other.waitFor("the pane's block in the vault pane", func(sc string) bool {
			return strings.Contains(boxText(sc, "2 vault"), "first=e2e pane")
		})
		other.must("kill-server")
	})

	t.Run("kill -9", func(t *testing.T) {
		tm.t = t
		tm.keys("C-b", "q", "0")
		tm.typeText("e2e killed task")
		tm.keys("Enter")
		srv.WaitRequests(2, waitTimeout)
		// The kill comes once the journal holds the shell's cd: the
		// journal looks at a shell's directory after the screen changed.
		waitUntil(t, "the shell's directory in the journal", func() bool {
			b, _ := os.ReadFile(filepath.Join(s.dirs["data"], "server", "sessions", "ws.json"))
			return strings.Contains(string(b), filepath.Join(s.dirs["ws"], "sub"))
		})
		if err := syscall.Kill(s.serverPID(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, "the client to exit 1 saying it lost the server", func() bool {
			code, _ := os.ReadFile(attached)
			b, _ := os.ReadFile(written)
			return strings.TrimSpace(string(code)) == "1" && strings.Contains(string(b), "lost the server")
		}, func() string {
			code, _ := os.ReadFile(attached)
			b, _ := os.ReadFile(written)
			return fmt.Sprintf("status %q, last output %q", code, b[max(0, len(b)-200):])
		})
		again, status := s.script("--workspace", s.dirs["ws"], "--shell", shell)
		tm.must("respawn-pane", "-k", "-t", "kws", again)
		srv.WaitRequests(3, waitTimeout)
		sc := tm.waitFor("the restored session", func(sc string) bool {
			agent := boxText(sc, "0 agent-1")
			return strings.Contains(agent, "slow answer done") && strings.Contains(agent, "resumed after the crash") &&
				// The whole notice: the session came back at its
				// size, so the shell did not start narrower.
				strings.Contains(strings.Join(rowsOf(sc, "1 shell"), ""), "the old screen is gone]") &&
				statsCalls(sc, "agent-1") >= 2
		})
		// The shell came back in the directory it was in.
		tm.keys("C-b", "q", "1")
		tm.typeText("pwd")
		tm.keys("Enter")
		tm.waitFor("pwd in the restored shell", func(sc string) bool {
			return contains(rowsOf(sc, "1 shell"), filepath.Join(s.dirs["ws"], "sub"))
		})
		if !strings.Contains(sc, "┌ 2 vault") || !strings.Contains(sc, "┌ 3 stats") {
			t.Errorf("the layout was not restored:\n%s", sc)
		}
		// kws run in the workspace runs as a new agent of the session.
		out := s.must("", "run", "--workspace", s.dirs["ws"], "e2e run task")
		if !strings.Contains(out, "run answer") || !strings.Contains(out, "agent-2 of session ws") {
			t.Errorf("kws run through the server printed:\n%s", out)
		}
		tm.waitFor("the run's agent pane", func(sc string) bool {
			return strings.Contains(sc, "agent-2 · idle") && strings.Contains(sc, "run answer")
		})
		// A model chosen in kws run's environment is refused, not
		// silently replaced by the session's.
		s.env["KWS_MODEL"] = "another-model"
		out, err := s.run("", "run", "--workspace", s.dirs["ws"], "never run")
		s.env["KWS_MODEL"] = providertest.Model
		if err == nil || !strings.Contains(out, "KWS_MODEL=another-model") || strings.Contains(out, "runs the task") {
			t.Errorf("kws run with another KWS_MODEL through the server (%v):\n%s", err, out)
		}
		launcher, _ = tm.paneState()
		pid = childPID(t, launcher)
		tm.keys("C-b", "Q")
		tm.waitFor("the quit dialog", func(sc string) bool { return strings.Contains(sc, "End session") })
		tm.keys("Tab", "Enter")
		code, sc := tm.waitExit(pid, status)
		if code != "0" || strings.Contains(sc, "┌") {
			t.Fatalf("kws exited %s after ending the session; screen:\n%s", code, sc)
		}
		waitUntil(t, "the exited message", func() bool {
			b, _ := os.ReadFile(written)
			return strings.Contains(string(b), "[exited (from session ws)]")
		})
		waitUntil(t, "the server to stop with its last session", func() bool {
			out, err := s.run("", "ls")
			return err != nil && strings.Contains(out, "no server running")
		})
		if left, _ := filepath.Glob(filepath.Join(s.dirs["data"], "server", "sessions", "*.json")); len(left) > 0 {
			t.Errorf("an ended session's journal is left: %v", left)
		}
	})
}

// mustScript is a launcher of kws with args, its status file unused.
func mustScript(s *setup, args ...string) string {
	l, _ := s.script(args...)
	return l
}

// waitUntil polls cond until it holds, failing the test at waitTimeout.
func waitUntil(t *testing.T, what string, cond func() bool, state ...func() string) {
	t.Helper()
	waitUntilIn(t, waitTimeout, what, cond, state...)
}

// waitUntilIn is waitUntil failing after limit; state says, on failure,
// what the test saw.
func waitUntilIn(t *testing.T, limit time.Duration, what string, cond func() bool, state ...func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			for _, st := range state {
				what += "; " + st()
			}
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(pollInterval)
	}
}

// step runs one stage of a scenario as a subtest; a failed stage ends
// the scenario, since the next ones build on it.
func step(t *testing.T, name string, fn func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, fn) {
		t.FailNow()
	}
}

// statsCalls is the calls column of agent's row in the stats pane, -1
// when the row is not shown.
func statsCalls(screen, agent string) int {
	for _, row := range rowsOf(screen, "3 stats") {
		f := strings.Fields(row)
		if len(f) > 1 && f[0] == agent {
			n, err := strconv.Atoi(f[1])
			if err == nil {
				return n
			}
		}
	}
	return -1
}
