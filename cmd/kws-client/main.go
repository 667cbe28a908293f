// The Go runtime would read the cgroup's CPU limit every second to
// follow changes to it; kws sits at 0 % CPU when idle instead.
//
//go:debug updatemaxprocs=0

// Command kws-client is the kws that make build installs as bin/kws: a
// thin client that starts in a few milliseconds. When a kws server runs
// for the data dir, kws and kws attach [-t NAME] attach the terminal to
// its session from here, and a command the server runs for its clients
// (kws memory search, kws vault get and the other vault, memory, sessions
// and run commands) runs there over the server's socket. Everything
// else, and every command while no server runs, is the whole kws: the
// program kws-core beside this one (cmd/kws), which it replaces itself
// with. Process start is most of a short command's time: the whole kws
// links llama.cpp and every package of the workstation, whose
// initialization alone takes about 30 ms.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"github.com/kwsdev/kws/internal/buildinfo"
	"github.com/kwsdev/kws/internal/datadir"
	"github.com/kwsdev/kws/server/wire"
)

// prctl's PR_GET_DUMPABLE and PR_SET_DUMPABLE (linux/prctl.h): the
// syscall package, all the thin client links, does not name them.
const (
	prGetDumpable = 3
	prSetDumpable = 4
)

// protectEnviron makes the process not dumpable. The environment may hold
// API keys, and a forwarded kws run lives as long as its agent: like
// kws-core (protectKeys), the thin client then keeps the commands agents
// run as this user from reading /proc/PID/environ. kws-core, which an
// exec makes dumpable again, protects itself.
func protectEnviron() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return errno
	}
	return nil
}

// CoreEnv names the variable that points the thin client at the whole
// kws; unset, it is kws-core in the thin client's own directory.
const CoreEnv = "KWS_CORE"

func main() {
	if err := protectEnviron(); err != nil {
		fmt.Fprintln(os.Stderr, "kws: warning: cannot protect the API keys in the environment:", err)
	}
	args := os.Args[1:]
	if filepath.Base(os.Args[0]) == "tmux" {
		os.Exit(tmux(args, os.Stdin, os.Stdout, os.Stderr))
	}
	if buildinfo.IsVersionArgs(args) {
		// kws-core, when it is here, tells both programs' builds.
		if _, err := corePath(); err != nil {
			os.Exit(printVersion(os.Stdout, args, err))
		}
	} else if code, err := attach(args, os.Stdout, os.Stderr); err == nil {
		os.Exit(code)
	} else if code, err := run(args, os.Stdin, os.Stdout, os.Stderr); err == nil {
		os.Exit(code)
	}
	core, err := corePath()
	if err == nil {
		err = syscall.Exec(core, append([]string{core}, os.Args[1:]...), os.Environ())
	}
	fmt.Fprintln(os.Stderr, "kws:", err)
	os.Exit(1)
}

// errLocal says that the command runs in the whole kws, not the server.
var errLocal = errors.New("the command runs in kws-core")

// run runs args in the server of their data dir when one runs and runs
// that command for its clients, and returns its exit code; errLocal when
// the whole kws must run it. A failure after the server took the command
// is printed and exits 1: the command may have done part of its work, so
// it is not run a second time.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	c, err := dialServer(args)
	if err != nil {
		return 0, err
	}
	wd, _ := os.Getwd()
	e, err := wire.Exec(c, wire.Hello{Args: args, Cwd: wd, IfServer: true, Session: os.Getenv(wire.SessionEnv),
		ModelEnv: wire.ModelEnv(os.Getenv)}, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "kws:", err)
		return 1, nil
	}
	if e.Local {
		return 0, errLocal
	}
	return e.Code, nil
}

// dialServer connects to the server of args' data dir; errLocal when
// none answers, so kws-core runs the command.
func dialServer(args []string) (*net.UnixConn, error) {
	sock, err := wire.SocketPath(dataDir(args))
	if err != nil {
		return nil, errLocal
	}
	c, err := wire.Dial(sock)
	if err != nil {
		return nil, errLocal
	}
	return c, nil
}

// dataDir is the data dir of args: their --data-dir, else the default.
func dataDir(args []string) string {
	if dir, ok := wire.DataDirArg(args); ok {
		return dir
	}
	return datadir.Default()
}

// corePath is the whole kws: $KWS_CORE, else kws-core beside this
// program (symbolic links to it followed).
func corePath() (string, error) {
	if p := os.Getenv(CoreEnv); p != "" {
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find kws-core: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	core := filepath.Join(filepath.Dir(exe), "kws-core")
	if _, err := os.Stat(core); err != nil {
		return "", fmt.Errorf("kws-core, the whole kws, is not beside %s: build both with make build (%w)", exe, err)
	}
	return core, nil
}

// printVersion prints the thin client's own build, for --version when
// kws-core, which tells more, is missing (why is missing), and returns 0.
func printVersion(w io.Writer, args []string, missing error) int {
	self := buildinfo.Self()
	r := buildinfo.Report{Client: &self, Missing: missing.Error()}
	if args[len(args)-1] == "--json" {
		_ = json.NewEncoder(w).Encode(r)
		return 0
	}
	r.Write(w)
	return 0
}
