package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// blockText is the vault block the agent's answer refers to; the viewer
// must show it exactly, indentation included.
const blockText = "e2e exact block\nline 2: kept byte for byte\n    indented line 3\n"

// streamed is the first answer; it arrives two runes at a time.
const streamed = "Streaming works: the quick brown fox jumps over the lazy dog."

// TestWorkstation runs bare kws in tmux against a scripted model and
// drives it by keys: a shell command, vim, a streamed answer, a vault ref
// opened by Tab/Enter and by .ctx_get, then C-b Q while a turn runs (the
// quit dialog: End session), and checks kws exits 0 and leaves the terminal sane.
func TestWorkstation(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	// Commands reach the vault before any server runs: kws opens it
	// directly.
	out := s.must(blockText, "vault", "put", "--kind", "log")
	id := strings.TrimSpace(out)
	if !strings.HasPrefix(id, "ctx:") {
		t.Fatalf("kws vault put printed %q, want an id", out)
	}
	srv.Push(
		providertest.Step{Text: streamed, ChunkSize: 2, ChunkDelay: 40 * time.Millisecond,
			Match: lastUser("e2e question one")},
		providertest.Step{Text: "The build log is " + id + " — open it.", Match: lastUser("e2e question two")},
		// The swarm: agent-1 puts a task on the board and claims it, then
		// two spawned agents say hello.
		providertest.Step{ToolCalls: []provider.ToolCall{{ID: "b1", Name: "todo", Arguments: `{"action":"add","text":"e2e board task"}`}},
			Match: lastUser("e2e swarm plan")},
		providertest.Step{ToolCalls: []provider.ToolCall{{ID: "b2", Name: "todo", Arguments: `{"action":"claim","id":1}`}}},
		providertest.Step{Text: "claimed t1"},
		providertest.Step{Text: "hello from a spawned agent"},
		providertest.Step{Text: "hello from a spawned agent"},
		// The third turn is still thinking when the user quits.
		providertest.Step{Text: "too late", Delay: time.Minute, Match: lastUser("e2e question three")},
	)
	script, status := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	conf := s.tmuxConf()
	root := s.root
	tm := startTerm(t, root, conf, script)
	tm.waitFor("the first frame", func(s string) bool {
		return strings.Contains(s, "┌ 0 agent-1") && strings.Contains(s, "┌ 3 stats")
	})
	launcher, _ := tm.paneState()
	pid := childPID(t, launcher)

	t.Run("shell", func(t *testing.T) {
		tm.t = t
		tm.waitFor("the shell prompt", func(s string) bool { return lastLine(rowsOf(s, "1 shell")) == "$" })
		tm.keys("C-b", "q", "1")
		tm.typeText("echo e2e-$((6*7))")
		tm.keys("Enter")
		tm.waitFor("e2e-42 in the shell pane", func(s string) bool {
			rows := rowsOf(s, "1 shell")
			return contains(rows, "e2e-42") && lastLine(rows) == "$"
		})
		// Ctrl-c interrupts the shell's job; it does not quit kws. The job
		// prints its own marker, so it is in the foreground when the
		// marker shows (an echo by bash itself would race the fork).
		tm.typeText(`sh -c 'echo sleep-$((2*21)); exec sleep 30'; echo slept`)
		tm.keys("Enter")
		tm.waitFor("sleep running", func(s string) bool { return contains(rowsOf(s, "1 shell"), "sleep-42") })
		tm.keys("C-c")
		tm.waitFor("the prompt after Ctrl-c", func(s string) bool {
			rows := rowsOf(s, "1 shell")
			return lastLine(rows) == "$" && !contains(rows, "slept")
		})
	})

	t.Run("vim", func(t *testing.T) {
		tm.t = t
		if _, err := exec.LookPath("vim"); err != nil {
			t.Skip("vim is not installed (make setup installs it on Debian)")
		}
		tm.keys("C-b", "q", "1")
		tm.typeText("vim -u NONE -n x.txt")
		tm.keys("Enter")
		tm.waitFor("vim's screen", func(s string) bool {
			rows := rowsOf(s, "1 shell")
			return tildes(rows) >= 10 && strings.Contains(lastLine(rows), `"x.txt" [New File]`)
		})
		tm.typeText(":q!")
		tm.keys("Enter")
		tm.waitFor("the prompt back and vim's screen gone", func(s string) bool {
			rows := rowsOf(s, "1 shell")
			return tildes(rows) == 0 && !strings.Contains(strings.Join(rows, "\n"), "[New File]") &&
				contains(rows, "$ vim -u NONE -n x.txt") && lastLine(rows) == "$"
		})
	})

	t.Run("stream", func(t *testing.T) {
		tm.t = t
		tm.keys("C-b", "q", "0")
		tm.typeText("e2e question one")
		tm.keys("Enter")
		partial := false
		tm.waitFor("the streamed answer in the agent pane", func(s string) bool {
			text := boxText(s, "0 agent-1")
			if strings.Contains(text, "Streaming works") && !strings.Contains(text, streamed) {
				partial = true
			}
			return strings.Contains(text, "› e2e question one") && strings.Contains(text, streamed)
		})
		if !partial {
			t.Errorf("never saw a partial answer: the text did not stream")
		}
		tm.waitFor("agent-1 idle", func(s string) bool { return strings.Contains(s, "┌ 0 agent-1 · idle") })
	})

	t.Run("ref", func(t *testing.T) {
		tm.t = t
		tm.keys("C-b", "q", "0")
		tm.typeText("e2e question two")
		tm.keys("Enter")
		tm.waitFor("the ref in the agent pane", func(s string) bool {
			return strings.Contains(boxText(s, "0 agent-1"), "The build log is "+id)
		})
		tm.waitFor("agent-1 idle", func(s string) bool { return strings.Contains(s, "┌ 0 agent-1 · idle") })
		tm.keys("Tab")
		tm.keys("Enter")
		tm.waitFor("the block in the vault pane (Tab, Enter)", shows(id))
		tm.keys("Escape") // the vault pane has the focus: back to the list
		tm.waitFor("the vault list again", func(s string) bool {
			_, ok := box(s, "2 vault (")
			return ok
		})
		tm.keys("C-b", "q", "0")
		tm.typeText(".ctx_get id=" + id)
		tm.keys("Enter")
		tm.waitFor("the block in the vault pane (.ctx_get)", shows(id))
	})

	t.Run("swarm", func(t *testing.T) {
		tm.t = t
		tm.keys("C-b", "q", "0")
		tm.typeText("e2e swarm plan")
		tm.keys("Enter")
		tm.waitFor("agent-1's answer", func(s string) bool { return strings.Contains(boxText(s, "0 agent-1"), "claimed t1") })
		tm.keys("C-b", ":")
		tm.typeText(`spawn 2 "say hello"`)
		tm.keys("Enter")
		tm.waitFor("three agents idle in the status bar", func(s string) bool {
			return strings.Contains(s, "agent-1 ○ idle") && strings.Contains(s, "agent-2 ○ idle") && strings.Contains(s, "agent-3 ○ idle")
		})
		tm.keys("C-b", "b")
		tm.waitFor("the board with agent-1's task", func(s string) bool {
			for _, row := range strings.Split(s, "\n") {
				if strings.Contains(row, "t1 ") && strings.Contains(row, "claimed  agent-1") {
					return true
				}
			}
			return false
		})
	})

	t.Run("quit", func(t *testing.T) {
		tm.t = t
		tm.keys("C-b", "q", "0")
		tm.typeText("e2e question three")
		tm.keys("Enter")
		tm.waitFor("agent-1 thinking", func(s string) bool { return strings.Contains(s, "┌ 0 agent-1 · thinking") })
		tm.keys("C-b", "Q")
		tm.waitFor("the quit dialog", func(s string) bool {
			return strings.Contains(s, "agent-1 is still working. Detach") && strings.Contains(s, "End session")
		})
		tm.keys("Tab", "Enter") // the second button: End session
		code, s := tm.waitExit(pid, status)
		if code != "0" {
			t.Errorf("kws exited with status %s; screen:\n%s", code, s)
		}
		// The terminal is restored: no frame is left behind, the
		// alternate screen, mouse reporting and cursor-key mode are off.
		// (A dead pane's cursor_flag is tmux's own, so it is not checked.)
		if strings.Contains(s, "agent-1") || strings.Contains(s, "┌") {
			t.Errorf("the workstation's frame is still on the screen after exit:\n%s", s)
		}
		const modes = "#{alternate_on} #{mouse_any_flag} #{keypad_cursor_flag}"
		if got := strings.TrimSpace(tm.must("display-message", "-p", "-t", "kws", modes)); got != "0 0 0" {
			t.Errorf("terminal modes after exit (%s) = %q, want \"0 0 0\"", modes, got)
		}
	})
}

// lastUser checks that a request's last user message is want.
func lastUser(want string) func(providertest.RecordedRequest) error {
	return func(r providertest.RecordedRequest) error {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if m := r.Messages[i]; m.Role == "user" {
				if !strings.Contains(m.Content, want) {
					return fmt.Errorf("last user message %q, want %q", m.Content, want)
				}
				return nil
			}
		}
		return fmt.Errorf("no user message, want %q", want)
	}
}

// shows reports whether the vault pane views block id with its exact text.
func shows(id string) func(string) bool {
	return func(s string) bool {
		rows, ok := box(s, "2 vault: "+id)
		if !ok {
			return false
		}
		for _, l := range strings.Split(strings.TrimSuffix(blockText, "\n"), "\n") {
			if !contains(rows, l) {
				return false
			}
		}
		return true
	}
}

// rowsOf returns the inner rows of the pane whose title starts with title.
func rowsOf(screen, title string) []string {
	rows, _ := box(screen, title)
	return rows
}

// contains reports whether a row is exactly want.
func contains(rows []string, want string) bool {
	for _, r := range rows {
		if r == want {
			return true
		}
	}
	return false
}

// tildes counts vim's "~" filler rows.
func tildes(rows []string) int {
	n := 0
	for _, r := range rows {
		if r == "~" {
			n++
		}
	}
	return n
}
