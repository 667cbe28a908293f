package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/launch"
	"github.com/kwsdev/kws/server/wire"
)

// started is what fakeServer writes to DATA/started.json.
type started struct {
	Args []string          `json:"args"`
	Keys map[string]string `json:"keys"`
	// EnvKey is $KWS_API_KEY in the server's environment; Held and Ready
	// are the launch variables left there once it read them.
	EnvKey, Held, Ready string
	SessionArgs         []string `json:"session_args"`
}

// fakeServer is kws-core as the thin client starts it (kws-core
// --data-dir DATA [flags] server), serving keySessions. It writes what it
// was given to DATA/started.json once a session starts; with
// KWS_FAKE_FAIL set it fails before listening, as a server with a broken
// data dir does.
func fakeServer() {
	args := os.Args[1:]
	if len(args) < 3 || args[0] != "--data-dir" || args[len(args)-1] != "server" {
		fmt.Fprintln(os.Stderr, "fake kws-core: not a server command:", args)
		os.Exit(2)
	}
	if msg := os.Getenv("KWS_FAKE_FAIL"); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
	data := args[1]
	keys, err := launch.ReadHeld()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake kws-core:", err)
		os.Exit(1)
	}
	sock, err := wire.SocketPath(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake kws-core:", err)
		os.Exit(1)
	}
	st := started{Args: args, Keys: keys, EnvKey: os.Getenv("KWS_API_KEY"), Held: os.Getenv(launch.HeldEnv)}
	d, err := server.Start(server.Config{DataDir: data, Socket: sock,
		NewSession: func(spec server.SessionSpec) (server.Session, error) {
			st.SessionArgs = spec.Args
			b, _ := json.Marshal(st)
			if err := os.WriteFile(filepath.Join(data, "started.json"), b, 0o600); err != nil {
				return nil, err
			}
			return &keySession{spec: spec, ended: make(chan struct{}), ready: make(chan struct{})}, nil
		}})
	if errors.Is(err, server.ErrRunning) {
		os.Exit(launch.ExitRunning)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake kws-core:", err)
		os.Exit(1)
	}
	launch.Listening()
	st.Ready = os.Getenv(launch.ReadyEnv)
	_ = d.Serve()
	os.Exit(0)
}

// fakeCore writes a kws-core that runs this test binary as fakeServer.
func fakeCore(t *testing.T) string {
	t.Helper()
	core := filepath.Join(t.TempDir(), "kws-core")
	script := "#!/bin/sh\nKWS_CLIENT_TEST=core exec '" + os.Args[0] + "' \"$@\"\n"
	if err := os.WriteFile(core, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return core
}

// runtimeDir gives the test a private runtime dir short enough for a
// socket path.
func runtimeDir(t *testing.T) {
	t.Helper()
	run, err := os.MkdirTemp("", "kwsc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	t.Setenv("XDG_RUNTIME_DIR", run)
	t.Setenv(wire.SocketEnv, "")
}

// TestStartsTheServer runs kws on a real terminal with no server for its
// data dir: the thin client starts kws-core's server itself, waits for
// it to listen and attaches, so the session's screen arrives and keys
// reach it, with two kws started at once on one server. The server got
// the workstation flags for the session, the global flags for itself, and
// the API key on a pipe, never in its environment. A server that fails to start
// is reported with where its output went, and exits the client 1.
func TestStartsTheServer(t *testing.T) {
	runtimeDir(t)
	data := t.TempDir()
	sock, err := wire.SocketPath(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := server.KillServer(sock); err != nil {
			b, _ := os.ReadFile(filepath.Join(data, "server.lock"))
			var pid int
			if _, err := fmt.Sscan(string(b), &pid); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	ws := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{CoreEnv + "=" + fakeCore(t), "KWS_DATA_DIR=" + data, "KWS_API_KEY=kws-test-key"}

	// Two at once: one server serves, the other gives way, and both
	// clients attach to the one that serves.
	var cmds []*exec.Cmd
	var screens []*screenLog
	for range 2 {
		cmd, screen := onPtyEnv(t, ws, env, "--theme", "light", "--sidecar-model", "m.gguf")
		cmds, screens = append(cmds, cmd), append(screens, screen)
	}
	for _, screen := range screens {
		screen.wait(t, "#ready")
	}
	if _, err := screens[0].pty.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	screens[0].wait(t, "<x>")
	for i, screen := range screens {
		if _, err := screen.pty.Write([]byte("q")); err != nil {
			t.Fatal(err)
		}
		screen.wait(t, "[detached (from session proj)]")
		if err := cmds[i].Wait(); err != nil {
			t.Fatalf("kws %d after a detach: %v", i+1, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(data, "started.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st started
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(data)
	if want := []string{"--data-dir", abs, "--sidecar-model", "m.gguf", "server"}; !slices.Equal(st.Args, want) {
		t.Errorf("the server's arguments: %q, want %q", st.Args, want)
	}
	if st.Keys["KWS_API_KEY"] != "kws-test-key" || st.EnvKey != "" || st.Held != "" || st.Ready != "" {
		t.Errorf("the API key: on the pipe %q, in the environment %q; left in it: %s=%q, %s=%q",
			st.Keys, st.EnvKey, launch.HeldEnv, st.Held, launch.ReadyEnv, st.Ready)
	}
	if !slices.Equal(st.SessionArgs, []string{"--theme=light"}) {
		t.Errorf("the session's flags: %q, want --theme=light", st.SessionArgs)
	}

	failing := t.TempDir()
	cmd, screen := onPtyEnv(t, ws, append(env, "KWS_DATA_DIR="+failing, "KWS_FAKE_FAIL=fake failure"))
	screen.wait(t, "the server did not start")
	screen.wait(t, filepath.Join(failing, "logs", "server.out"))
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("a server that fails: %v, want exit 1", err)
	}
	if out, _ := os.ReadFile(filepath.Join(failing, "logs", "server.out")); !strings.Contains(string(out), "fake failure") {
		t.Errorf("server.out: %q", out)
	}
}
