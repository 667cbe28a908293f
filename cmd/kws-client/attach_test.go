package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/wire"
)

func TestParseAttach(t *testing.T) {
	wd, err := filepath.EvalSymlinks(mustGetwd(t))
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		want  wire.Hello
		flags []string
		ok    bool
	}{
		{nil, wire.Hello{Mode: "default", Workspace: wd}, nil, true},
		{[]string{"--data-dir", "/d"}, wire.Hello{Mode: "default", Workspace: wd}, nil, true},
		// The flags a new session takes go to the server as kws-core
		// sends them; --sidecar-model goes to the server it starts.
		{[]string{"--theme", "light", "--workspace=" + tmp, "--worktree", "--emulator=vt"},
			wire.Hello{Mode: "default", Workspace: tmp, Args: []string{"--theme=light", "--worktree=true", "--emulator=vt"}}, nil, true},
		{[]string{"--data-dir=/d", "--shell", "/bin/sh", "--worktree=false", "--sidecar-model", "m.gguf"},
			wire.Hello{Mode: "default", Workspace: wd, Args: []string{"--shell=/bin/sh", "--worktree=false"}}, []string{"--sidecar-model", "m.gguf"}, true},
		{[]string{"attach"}, wire.Hello{Mode: "attach"}, nil, true},
		{[]string{"--data-dir=/d", "attach", "-t", "web"}, wire.Hello{Mode: "attach", Session: "web"}, nil, true},
		{[]string{"attach", "-tweb"}, wire.Hello{Mode: "attach", Session: "web"}, nil, true},
		{[]string{"attach", "--target", "web", "--data-dir", "/d"}, wire.Hello{Mode: "attach", Session: "web"}, nil, true},
		{[]string{"attach", "--target=web"}, wire.Hello{Mode: "attach", Session: "web"}, nil, true},
		// Everything else is kws-core's: other commands, a flag the thin
		// client does not know or without its value, a workspace that is
		// not there (kws-core says so).
		{[]string{"--theme"}, wire.Hello{}, nil, false},
		{[]string{"--worktree=maybe"}, wire.Hello{}, nil, false},
		{[]string{"--json"}, wire.Hello{}, nil, false},
		{[]string{"-V"}, wire.Hello{}, nil, false},
		{[]string{"--workspace", filepath.Join(tmp, "missing")}, wire.Hello{}, nil, false},
		{[]string{"attach", "-d"}, wire.Hello{}, nil, false},
		{[]string{"attach", "-t"}, wire.Hello{}, nil, false},
		{[]string{"attach", "web"}, wire.Hello{}, nil, false},
		{[]string{"new", "-s", "x"}, wire.Hello{}, nil, false},
		{[]string{"ls"}, wire.Hello{}, nil, false},
	} {
		got, ok := parseAttach(c.args)
		h := got.hello
		if ok != c.ok || h.Mode != c.want.Mode || h.Session != c.want.Session || h.Workspace != c.want.Workspace ||
			!slices.Equal(h.Args, c.want.Args) || !slices.Equal(got.serverFlags, c.flags) || ok && got.start != (h.Mode == "default") {
			t.Errorf("%q: %+v %v, want %+v %v", c.args, got, ok, c.want, c.ok)
		}
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// keySession draws each key typed as "<k>" and detaches on q.
type keySession struct {
	spec  server.SessionSpec
	ended chan struct{}
	once  sync.Once
	// ready is closed once the screen is up: a client may attach before.
	ready chan struct{}
}

func (k *keySession) Run() error {
	s := k.spec.Screen
	if err := s.Init(); err != nil {
		return err
	}
	defer s.Fini()
	close(k.ready)
	for i, r := range "#ready" {
		s.SetContent(i, 0, r, nil, tcell.StyleDefault)
	}
	s.Show()
	events := make(chan tcell.Event)
	go func() {
		for ev := s.PollEvent(); ev != nil; ev = s.PollEvent() {
			select {
			case events <- ev:
			case <-k.ended:
				return
			}
		}
	}()
	x := 0
	for {
		select {
		case <-k.ended:
			return nil
		case ev := <-events:
			key, ok := ev.(*tcell.EventKey)
			if !ok {
				s.Sync()
				continue
			}
			if key.Rune() == 'q' {
				k.spec.Detach()
				continue
			}
			for _, r := range []rune{'<', key.Rune(), '>'} {
				s.SetContent(x, 1, r, nil, tcell.StyleDefault)
				x++
			}
			s.Show()
		}
	}
}

func (k *keySession) End() { k.once.Do(func() { close(k.ended) }) }
func (k *keySession) Attached() {
	select {
	case <-k.ready:
		k.spec.Screen.Sync()
	default: // Run draws the first frame
	}
}
func (k *keySession) Agents() []server.AgentState      { return nil }
func (k *keySession) WaitingPanes() []server.PaneState { return nil }

// onPty runs the thin client with args on a new terminal of 80×20 in
// dir, with KWS_CORE a program that says it ran; it returns the command
// and what the terminal shows, read as it comes.
func onPty(t *testing.T, dir string, args ...string) (*exec.Cmd, *screenLog) {
	t.Helper()
	core := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(core, []byte("#!/bin/sh\necho core ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return onPtyEnv(t, dir, []string{CoreEnv + "=" + core}, args...)
}

// onPtyEnv is onPty with env added to the thin client's environment.
func onPtyEnv(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *screenLog) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "KWS_CLIENT_TEST=1", "TERM=xterm-256color"), env...)
	ptm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 20, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptm.Close()
	})
	l := &screenLog{more: make(chan struct{}, 1), pty: ptm}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := ptm.Read(b)
			l.mu.Lock()
			l.buf.Write(b[:n])
			l.mu.Unlock()
			select {
			case l.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return cmd, l
}

// screenLog is everything a terminal was sent.
type screenLog struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
	pty  *os.File
}

// wait waits until the terminal was sent want.
func (l *screenLog) wait(t *testing.T, want string) {
	t.Helper()
	for {
		l.mu.Lock()
		got := l.buf.String()
		l.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		select {
		case <-l.more:
		case <-time.After(30 * time.Second):
			t.Fatalf("the terminal never showed %q; it got %q", want, got)
		}
	}
}

// TestAttachesWithoutTheCore attaches the thin client to a real server's
// session on a real terminal, as kws and as kws attach -t NAME: the
// session's screen arrives, keys reach it, a detach prints tmux's message
// and exits 0, and kws-core never runs. A session that does not exist is
// refused with the server's words.
func TestAttachesWithoutTheCore(t *testing.T) {
	data := serve(t, server.Config{NewSession: func(spec server.SessionSpec) (server.Session, error) {
		return &keySession{spec: spec, ended: make(chan struct{}), ready: make(chan struct{})}, nil
	}})
	t.Setenv("KWS_DATA_DIR", data)
	ws := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{nil, {"attach", "-t", "proj"}} {
		cmd, screen := onPty(t, ws, args...)
		screen.wait(t, "#ready")
		if _, err := screen.pty.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		screen.wait(t, "<x>")
		if _, err := screen.pty.Write([]byte("q")); err != nil {
			t.Fatal(err)
		}
		screen.wait(t, "[detached (from session proj)]")
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%q after a detach: %v", args, err)
		}
		screen.mu.Lock()
		if strings.Contains(screen.buf.String(), "core ran") {
			t.Errorf("%q ran kws-core", args)
		}
		screen.mu.Unlock()
	}

	cmd, screen := onPty(t, ws, "attach", "-t", "nosuch")
	screen.wait(t, "kws: ")
	screen.wait(t, "nosuch")
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("attach to a missing session: %v, want exit 1", err)
	}
}
