package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// benchPoll is how often a benchmark reads a tmux screen while it waits.
const benchPoll = 10 * time.Millisecond

// benchEnv is a benchmark's temporary world in tmp: a private tmux
// server, this kws binary (exe), a plain shell for tmux's own panes and a
// launcher that runs kws with no model and an empty config: the thin
// client (client) when one is beside this binary, as make build installs
// them and users run them, else this binary.
type benchEnv struct {
	tmp, exe, client, shell, launch string
	srv                             *tmuxServer
}

// newBenchEnv makes a benchmark's world; args makes the launcher's kws
// arguments (sh words, "$@" for the launcher's own) from tmp.
func newBenchEnv(args func(tmp string) string) (*benchEnv, error) {
	tmp, err := os.MkdirTemp("", "kws-bench-")
	if err != nil {
		return nil, err
	}
	e := &benchEnv{tmp: tmp, shell: filepath.Join(tmp, "shell.sh"), launch: filepath.Join(tmp, "kws.sh")}
	if e.exe, err = os.Executable(); err == nil {
		e.client = thinClient(e.exe)
		e.srv, err = newTmuxServer(tmp)
	}
	if err == nil {
		err = e.srv.hold()
	}
	scripts := map[string]string{
		e.shell: "export PS1='$ ' HISTFILE=/dev/null\nexec /bin/bash --norc --noprofile -i\n",
		e.launch: "unset KWS_BASE_URL KWS_MODEL KWS_API_KEY OPENAI_BASE_URL OPENAI_API_KEY KWS_THEME\n" +
			"export XDG_CONFIG_HOME=" + shq(filepath.Join(tmp, "config")) + "\n" +
			"exec " + shq(e.client) + " " + args(tmp) + "\n",
	}
	for path, body := range scripts {
		if err == nil {
			err = os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755)
		}
	}
	if err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

// thinClient is the thin client beside core when core is kws-core (as
// make build leaves them in bin/), else core itself.
func thinClient(core string) string {
	if filepath.Base(core) != "kws-core" {
		return core
	}
	client := filepath.Join(filepath.Dir(core), "kws")
	if _, err := os.Stat(client); err != nil {
		return core
	}
	return client
}

// close ends the world: every kws server started on a data dir in tmp,
// the tmux server, the files.
func (e *benchEnv) close() {
	locks, _ := filepath.Glob(filepath.Join(e.tmp, "*", "server.lock"))
	for _, lock := range locks {
		_ = exec.Command(e.exe, "--data-dir", filepath.Dir(lock), "kill-server").Run()
	}
	if e.srv != nil {
		e.srv.kill()
	}
	_ = os.RemoveAll(e.tmp)
}

// tmuxServer is a private tmux server on its own socket (tmux -S), so the
// UI benchmark never touches the user's tmux. Its sessions have no status
// line (a session of W×H is one pane of W×H) and keep a program's last
// screen when it exits, so a failure shows what it printed.
type tmuxServer struct {
	sock, conf string // socket and config paths
}

// newTmuxServer prepares a server whose socket and config live in dir;
// the server itself starts with the first session.
func newTmuxServer(dir string) (*tmuxServer, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, errors.New("bench ui needs tmux, which is not installed: " +
			"make setup installs it on Debian (apt-get install tmux), elsewhere use your package manager")
	}
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g status off\nset -g remain-on-exit on\n"), 0o600); err != nil {
		return nil, err
	}
	return &tmuxServer{sock: filepath.Join(dir, "tmux.sock"), conf: conf}, nil
}

// run runs one tmux command on the server and returns its output.
func (s *tmuxServer) run(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", s.sock, "-f", s.conf}, args...)...)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "TMUX=") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %w: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// start opens a detached session of w×h running command (through sh -c;
// prefix it with exec so the pane's pid is the program's).
func (s *tmuxServer) start(name string, w, h int, command string) error {
	_, err := s.run("new-session", "-d", "-s", name, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), command)
	return err
}

// hold keeps the server up while the benchmark closes and opens its
// sessions: tmux exits with its last session, and a session opened while
// it exits fails.
func (s *tmuxServer) hold() error { return s.start("hold", 20, 5, "exec sleep 86400") }

// stop closes a session; its program gets SIGHUP.
func (s *tmuxServer) stop(name string) { _, _ = s.run("kill-session", "-t", name) }

// kill ends the server and every session on it, and removes its socket.
func (s *tmuxServer) kill() {
	_, _ = s.run("kill-server")
	_ = os.Remove(s.sock)
}

// keys sends tmux key names (Enter, C-b, …) to a session.
func (s *tmuxServer) keys(name string, keys ...string) error {
	_, err := s.run(append([]string{"send-keys", "-t", name}, keys...)...)
	return err
}

// typeText types text literally into a session.
func (s *tmuxServer) typeText(name, text string) error {
	_, err := s.run("send-keys", "-t", name, "-l", text)
	return err
}

// screen returns what a session's pane shows and whether its program has
// exited, in one tmux call.
func (s *tmuxServer) screen(name string) (string, bool, error) {
	out, err := s.run("capture-pane", "-p", "-t", name, ";", "display-message", "-p", "-t", name, "#{pane_dead}")
	if err != nil {
		return "", false, err
	}
	out = strings.TrimSuffix(out, "\n")
	i := strings.LastIndexByte(out, '\n')
	return out[:i+1], out[i+1:] == "1", nil
}

// waitFor polls a session's screen every benchPoll until cond holds and
// returns that screen, or fails after timeout with what was on it.
func (s *tmuxServer) waitFor(name, what string, timeout time.Duration, cond func(string) bool) (string, error) {
	return s.waitEvery(name, what, benchPoll, timeout, cond)
}

// waitEvery is waitFor polling every poll (plus a tmux call's time): a
// short poll times a quick event finely, at the cost of a busier machine.
func (s *tmuxServer) waitEvery(name, what string, poll, timeout time.Duration, cond func(string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		scr, dead, err := s.screen(name)
		if err != nil {
			return "", err
		}
		if cond(scr) {
			return scr, nil
		}
		if dead {
			return "", fmt.Errorf("%s: the program exited while waiting for %s; the screen:\n%s", name, what, strings.TrimRight(scr, "\n"))
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s: timed out after %v waiting for %s; the screen:\n%s", name, timeout, what, scr)
		}
		time.Sleep(poll)
	}
}

// panePID returns the pid of the program in a session's pane.
func (s *tmuxServer) panePID(name string) (int, error) {
	out, err := s.run("list-panes", "-t", name, "-F", "#{pane_pid}")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// version returns tmux -V, e.g. "tmux 3.3a".
func tmuxVersion() string {
	out, err := exec.Command("tmux", "-V").Output()
	if err != nil {
		return "tmux"
	}
	return strings.TrimSpace(string(out))
}

// cpuTime returns the CPU time pid has used so far: the sum of its
// threads' time on a CPU from /proc/PID/task/*/schedstat, in nanoseconds
// (Linux). /proc/PID/stat counts in clock ticks (10 ms), too coarse for
// an idle process: one tick crossed in a window reads as 10 ms. It falls
// back to that when the kernel keeps no schedstat; a thread that exited
// takes its time with it, which the Go runtime's threads rarely do.
func cpuTime(pid int) (time.Duration, error) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return statCPUTime(pid)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return statCPUTime(pid)
		}
		total += time.Duration(ns)
	}
	if len(tasks) == 0 {
		return statCPUTime(pid)
	}
	return total, nil
}

// statCPUTime returns the user plus system CPU time pid has used so far,
// from /proc/PID/stat, in clock ticks.
func statCPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("idle CPU needs /proc (Linux): %w", err)
	}
	// The command name may hold spaces and parentheses: count fields
	// after its closing parenthesis. utime and stime are fields 14 and 15,
	// the 12th and 13th after it.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * time.Second / time.Duration(clockTicks()), nil
}

// clockTicks is the kernel's USER_HZ (getconf CLK_TCK), 100 when unknown.
func clockTicks() int64 {
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 100
}

// frameRows returns the inner rows of the kws pane whose frame's top
// border starts with "┌ "+title on screen, or false when there is none.
func frameRows(screen, title string) ([]string, bool) {
	var grid [][]rune
	for _, l := range strings.Split(screen, "\n") {
		grid = append(grid, []rune(l))
	}
	head := []rune("┌ " + title)
	for y, row := range grid {
		x := -1
		for c := 0; c+len(head) <= len(row) && x < 0; c++ {
			if slices.Equal(row[c:c+len(head)], head) {
				x = c
			}
		}
		if x < 0 {
			continue
		}
		right := slices.Index(row[x:], '┐')
		if right < 0 {
			return nil, false
		}
		var rows []string
		for yy := y + 1; yy < len(grid) && x < len(grid[yy]) && grid[yy][x] != '└'; yy++ {
			rows = append(rows, string(grid[yy][x+1:min(x+right, len(grid[yy]))]))
		}
		return rows, true
	}
	return nil, false
}
