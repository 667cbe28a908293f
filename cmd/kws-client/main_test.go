package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/wire"
)

// TestMain runs the thin client itself when the test binary is started as
// it (KWS_CLIENT_TEST=1), so the tests see its exit codes and its exec of
// kws-core; KWS_CLIENT_TEST=core is a kws-core that can only serve
// (fakeServer), and KWS_CLIENT_TEST=dumpable checks protectEnviron.
func TestMain(m *testing.M) {
	switch os.Getenv("KWS_CLIENT_TEST") {
	case "1":
		main()
	case "core":
		fakeServer()
	case "dumpable":
		err := protectEnviron()
		d, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, prGetDumpable, 0, 0)
		fmt.Println(d, err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestDataDir(t *testing.T) {
	t.Setenv("KWS_DATA_DIR", "/default")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "/default"},
		{[]string{"memory", "search", "q"}, "/default"},
		{[]string{"--data-dir", "/a", "memory", "search", "q"}, "/a"},
		{[]string{"memory", "--data-dir=/b", "search", "q"}, "/b"},
		{[]string{"--data-dir", "/a", "--data-dir=/c", "vault", "ls"}, "/c"},
		{[]string{"vault", "put", "--", "--data-dir", "/no"}, "/default"},
		{[]string{"vault", "ls", "--data-dir"}, "/default"},
	} {
		if got := dataDir(c.args); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}

// client runs the thin client on args with stdin, in env (added to the
// test's), and returns its exit code and output.
func client(t *testing.T, env []string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "KWS_CLIENT_TEST=1"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// TestForwardsOrRunsTheCore starts a real server for a data dir, whose
// "memory" commands echo their arguments and input: the thin client runs
// those there, and replaces
// itself with kws-core, which gets the whole input, for every other
// command and for a data dir no server serves.
func TestForwardsOrRunsTheCore(t *testing.T) {
	data := serve(t, server.Config{
		Exec: func(r server.ExecRequest) int {
			in, _ := io.ReadAll(r.Stdin)
			fmt.Fprintf(r.Stdout, "server ran %q in %s with %q", r.Args, r.Cwd, in)
			fmt.Fprint(r.Stderr, "to stderr")
			return 7
		},
		Runs: func(args []string) bool { return len(args) > 2 && args[2] == "memory" }})
	core := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(core, []byte("#!/bin/sh\necho \"core $*\"\ncat\nexit 4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{CoreEnv + "=" + core}
	wd, _ := os.Getwd()

	code, out, errOut := client(t, env, "some input", "--data-dir", data, "memory", "search", "q")
	if want := fmt.Sprintf("server ran %q in %s with %q", []string{"--data-dir", data, "memory", "search", "q"}, wd, "some input"); code != 7 || out != want || errOut != "to stderr" {
		t.Fatalf("a server command: exit %d, %q, %q; want 7, %q", code, out, errOut, want)
	}
	code, out, _ = client(t, env, "all of the input", "--data-dir", data, "attach")
	if code != 4 || out != "core --data-dir "+data+" attach\nall of the input" {
		t.Fatalf("a command the server does not run: exit %d, %q", code, out)
	}
	code, out, _ = client(t, env, "", "--data-dir", t.TempDir(), "memory", "search", "q")
	if code != 4 || !strings.HasPrefix(out, "core --data-dir ") {
		t.Fatalf("no server: exit %d, %q", code, out)
	}
	// A server of an older protocol refuses the hello: nothing ran, and
	// kws-core runs the command with the whole input.
	old := t.TempDir()
	oldSock, err := wire.SocketPath(old)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := server.Listen(oldSock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _, _ = wire.ReadFrame(c)
			_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 2, Message: "kws server: protocol 1, this client speaks 2"})
			c.Close()
		}
	}()
	code, out, errOut = client(t, env, "input", "--data-dir", old, "memory", "search", "q")
	if code != 4 || out != "core --data-dir "+old+" memory search q\ninput" || errOut != "" {
		t.Fatalf("an old server: exit %d, %q, %q", code, out, errOut)
	}
	// Without kws-core beside it, the thin client says what is missing.
	code, _, errOut = client(t, []string{CoreEnv + "="}, "", "--data-dir", data, "attach")
	if code != 1 || !strings.Contains(errOut, "kws-core, the whole kws, is not beside") {
		t.Fatalf("no kws-core: exit %d, %q", code, errOut)
	}
}

// serve starts a real server as cfg says on a data dir of its own, with
// its socket in a private runtime dir short enough for a socket path,
// and returns the data dir; the server stops with the test.
func serve(t *testing.T, cfg server.Config) string {
	t.Helper()
	runtimeDir(t)
	cfg.DataDir = t.TempDir()
	var err error
	if cfg.Socket, err = wire.SocketPath(cfg.DataDir); err != nil {
		t.Fatal(err)
	}
	d, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve() }()
	t.Cleanup(func() {
		d.Shutdown(true)
		<-served
	})
	return cfg.DataDir
}

// TestProtectEnviron checks that protectEnviron leaves the process not
// dumpable (in a child: it cannot be undone).
func TestProtectEnviron(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "KWS_CLIENT_TEST=dumpable")
	out, err := cmd.Output()
	if err != nil || string(out) != "0 <nil>\n" {
		t.Fatalf("dumpable after protectEnviron: %q %v", out, err)
	}
}

// TestVersion checks that --version reaches kws-core when it is there and
// that the thin client answers it alone, saying what is missing, when not.
func TestVersion(t *testing.T) {
	core := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(core, []byte("#!/bin/sh\necho \"core $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--version"}, {"-V"}, {"version"}} {
		code, out, _ := client(t, []string{CoreEnv + "=" + core}, "", args...)
		if code != 0 || out != "core "+args[0]+"\n" {
			t.Fatalf("%v with kws-core: exit %d, %q", args, code, out)
		}
	}
	code, out, _ := client(t, []string{CoreEnv + "="}, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "kws ") || !strings.Contains(out, "go1.") || !strings.Contains(out, "kws-core, the whole kws, is not beside") {
		t.Fatalf("--version without kws-core: exit %d, %q", code, out)
	}
	code, out, _ = client(t, []string{CoreEnv + "="}, "", "version", "--json")
	if code != 0 || !strings.Contains(out, `"client":{"path":"github.com/kwsdev/kws/cmd/kws-client"`) {
		t.Fatalf("version --json without kws-core: exit %d, %q", code, out)
	}
}
