// Package e2e drives the real kws binary in a real terminal: tmux runs it
// on its own server, send-keys types, capture-pane reads the screen.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	// waitTimeout bounds every wait for the screen.
	waitTimeout = 15 * time.Second
	// pollInterval is how often a wait reads the screen.
	pollInterval = 25 * time.Millisecond
	// termW and termH are the size of the tmux window kws draws on.
	termW, termH = 160, 48
)

// term is one tmux server on its own socket, so it never touches the
// user's tmux, with one session running kws.
type term struct {
	t    *testing.T
	sock []string // -S path in the test's temp dir, or -L name
}

// tmux runs one tmux command on the server and returns its output.
func (tm *term) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append(tm.sock[:len(tm.sock):len(tm.sock)], args...)...)
	cmd.Env = withoutTMUX(os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// must runs a tmux command and fails the test when it fails.
func (tm *term) must(args ...string) string {
	tm.t.Helper()
	out, err := tm.tmux(args...)
	if err != nil {
		tm.t.Fatal(err)
	}
	return out
}

// startTerm launches tmux with the config file conf and runs script in a
// detached termW×termH session; the server is killed when the test ends.
// Its socket lives in dir (removed with it), unless that path is too long
// for a socket.
func startTerm(t *testing.T, dir, conf, script string) *term {
	t.Helper()
	tm := &term{t: t, sock: []string{"-S", filepath.Join(dir, "tmux.sock")}}
	if len(tm.sock[1]) > 100 {
		tm.sock = []string{"-L", fmt.Sprintf("kws-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	}
	t.Cleanup(func() {
		sock, _ := tm.tmux("list-sessions", "-F", "#{socket_path}")
		_, _ = tm.tmux("kill-server")
		if p, _, _ := strings.Cut(sock, "\n"); p != "" {
			_ = os.Remove(p) // tmux leaves its socket behind
		}
	})
	if _, err := tm.tmux("-f", conf, "new-session", "-d", "-s", "kws", "-x", fmt.Sprint(termW), "-y", fmt.Sprint(termH), script); err != nil {
		t.Fatal(err)
	}
	return tm
}

// keys sends tmux key names (Enter, C-b, Tab, Escape…).
func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	tm.must(append([]string{"send-keys", "-t", "kws"}, keys...)...)
}

// typeText types s literally.
func (tm *term) typeText(s string) {
	tm.t.Helper()
	tm.must("send-keys", "-t", "kws", "-l", s)
}

// screen returns what the terminal shows now.
func (tm *term) screen() string {
	tm.t.Helper()
	return tm.must("capture-pane", "-p", "-t", "kws")
}

// waitFor polls the screen until cond holds and returns that screen; at
// the deadline it fails the test, printing the last screen.
func (tm *term) waitFor(what string, cond func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		s := tm.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", waitTimeout, what, s)
		}
		time.Sleep(pollInterval)
	}
}

// paneState returns the pid of the pane's program and whether it is dead.
func (tm *term) paneState() (pid int, dead bool) {
	tm.t.Helper()
	out := tm.must("list-panes", "-t", "kws", "-F", "#{pane_pid} #{pane_dead}")
	var d int
	_, _ = fmt.Sscan(strings.TrimSpace(out), &pid, &d)
	return pid, d == 1
}

// waitExit waits until the launcher has written kws's exit status to
// statusFile (so kws has exited and was reaped) and the pane is dead, and
// returns the status and the last screen. remain-on-exit keeps the dead
// pane readable. (The launcher, not tmux, reaps kws: tmux 3.3a sometimes
// leaves an exited pane program a zombie until its next SIGCHLD.) When kws
// hangs, the failure shows its state and, after SIGQUIT, its goroutines.
func (tm *term) waitExit(pid int, statusFile string) (status, screen string) {
	tm.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		s := tm.screen()
		_, dead := tm.paneState()
		b, err := os.ReadFile(statusFile)
		if err == nil && dead {
			// The screen read before may predate kws's last output.
			return strings.TrimSpace(string(b)), tm.screen()
		}
		if time.Now().After(deadline) {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			_ = exec.Command("kill", "-QUIT", fmt.Sprint(pid)).Run()
			time.Sleep(time.Second)
			hist, _ := tm.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "kws")
			tm.t.Fatalf("kws did not exit within %v (pane dead: %v; /proc/%d/stat: %q); screen:\n%s\nafter SIGQUIT, the pane's history:\n%s",
				waitTimeout, dead, pid, stat, s, hist)
		}
		time.Sleep(pollInterval)
	}
}

// endSession ends the session tm shows as a user does, C-b Q then End
// session, and waits for the kws whose exit status goes to statusFile to
// exit; it returns the status and the last screen.
func (tm *term) endSession(statusFile string) (status, screen string) {
	tm.t.Helper()
	launcher, _ := tm.paneState()
	pid := childPID(tm.t, launcher)
	tm.keys("C-b", "Q")
	tm.waitFor("the quit dialog", func(sc string) bool { return strings.Contains(sc, "End session") })
	tm.keys("Tab", "Enter")
	return tm.waitExit(pid, statusFile)
}

// childPID returns the first child of process pid (kws under its launcher).
func childPID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	var child int
	if _, err2 := fmt.Sscan(string(b), &child); err != nil || err2 != nil {
		t.Fatalf("no child of the launcher (pid %d): %v %v", pid, err, err2)
	}
	return child
}

// box returns the inner rows of the kws pane whose frame's top border
// starts with "┌ "+title, right-trimmed, or false when no frame has it.
func box(screen, title string) ([]string, bool) {
	rows := strings.Split(screen, "\n")
	grid := make([][]rune, len(rows))
	for i, r := range rows {
		grid[i] = []rune(r)
	}
	head := []rune("┌ " + title)
	for y, row := range grid {
		x := indexRunes(row, head)
		if x < 0 {
			continue
		}
		right := -1
		for c := x + 1; c < len(row); c++ {
			if row[c] == '┐' {
				right = c
				break
			}
		}
		if right < 0 {
			return nil, false
		}
		var inner []string
		for yy := y + 1; yy < len(grid) && x < len(grid[yy]) && grid[yy][x] != '└'; yy++ {
			end := min(right, len(grid[yy]))
			inner = append(inner, strings.TrimRight(string(grid[yy][x+1:end]), " "))
		}
		return inner, true
	}
	return nil, false
}

// boxText is box joined by newlines ("" when the pane is not shown).
func boxText(screen, title string) string {
	rows, _ := box(screen, title)
	return strings.Join(rows, "\n")
}

func indexRunes(row, sub []rune) int {
	for i := 0; i+len(sub) <= len(row); i++ {
		if string(row[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// lastLine returns the last non-blank row.
func lastLine(rows []string) string {
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.TrimSpace(rows[i]) != "" {
			return rows[i]
		}
	}
	return ""
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// shq quotes s for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// buildKws builds kws into dir as make build does, kws-core (cmd/kws)
// beside the thin client kws (cmd/kws-client), and returns the thin
// client's path: the program users run.
func buildKws(t *testing.T, dir string) string {
	t.Helper()
	for pkg, name := range map[string]string{"./cmd/kws": "kws-core", "./cmd/kws-client": "kws"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Dir = ".." // the module root; go test runs in the package directory
		if name == "kws" {
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return filepath.Join(dir, "kws")
}

func withoutTMUX(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "TMUX=") && !strings.HasPrefix(e, "TMUX_PANE=") {
			out = append(out, e)
		}
	}
	return out
}
