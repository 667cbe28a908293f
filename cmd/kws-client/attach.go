package main

import (
	"cmp"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/kwsdev/kws/server/launch"
	"github.com/kwsdev/kws/server/wire"
	"github.com/kwsdev/kws/termsafe"
)

// attachLine is a command line that attaches the terminal to a session.
type attachLine struct {
	hello wire.Hello
	// start is set when the command starts the server if none runs (kws
	// alone); serverFlags are the global flags that server takes.
	start       bool
	serverFlags []string
}

// parseAttach reads a command line that attaches a terminal to a session
// of the data dir's server, as kws-core would: kws alone, with the
// workstation flags a new session takes (the session of the workspace,
// made when there is none, and the server started when none runs), and
// kws attach [-t NAME]. --data-dir may be anywhere. Any other word or
// flag, or a flag without its value, leaves the command to kws-core.
func parseAttach(args []string) (attachLine, bool) {
	var words []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--data-dir":
			i++
		case strings.HasPrefix(a, "--data-dir="):
		default:
			words = append(words, a)
		}
	}
	if len(words) > 0 && words[0] == "attach" {
		h, ok := attachTarget(words[1:])
		return attachLine{hello: h}, ok
	}
	l := attachLine{hello: wire.Hello{Mode: "default"}, start: true}
	workspace := "."
	for i := 0; i < len(words); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(words[i], "--"), "=")
		if !strings.HasPrefix(words[i], "--") {
			return attachLine{}, false
		}
		if name == "worktree" {
			if hasValue && value != "true" && value != "false" {
				return attachLine{}, false
			}
			l.hello.Args = append(l.hello.Args, "--worktree="+cmp.Or(value, "true"))
			continue
		}
		if !hasValue {
			if i+1 == len(words) {
				return attachLine{}, false
			}
			i++
			value = words[i]
		}
		switch {
		case name == "workspace":
			workspace = value
		case name == "sidecar-model":
			l.serverFlags = append(l.serverFlags, "--sidecar-model", value)
		case slices.Contains(wire.SessionFlags, name):
			l.hello.Args = append(l.hello.Args, "--"+name+"="+value)
		default:
			return attachLine{}, false
		}
	}
	ws, err := filepath.Abs(workspace)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return attachLine{}, false
	}
	l.hello.Workspace = ws
	return l, true
}

// attachTarget is the hello of kws attach with the words after attach.
func attachTarget(rest []string) (wire.Hello, bool) {
	h := wire.Hello{Mode: "attach"}
	switch {
	case len(rest) == 0:
	case len(rest) == 2 && (rest[0] == "-t" || rest[0] == "--target"):
		h.Session = rest[1]
	case len(rest) == 1 && strings.HasPrefix(rest[0], "--target="):
		h.Session = strings.TrimPrefix(rest[0], "--target=")
	case len(rest) == 1 && strings.HasPrefix(rest[0], "-t") && len(rest[0]) > 2:
		h.Session = rest[0][2:]
	default:
		return wire.Hello{}, false
	}
	return h, true
}

// attach attaches this terminal to the session args name, starting the
// data dir's server when kws alone finds none, and returns the exit
// code; errLocal when kws-core must run the command (no server to attach
// to, no terminal, a command line it does not read). Attaching and
// starting from here saves the whole kws's start, which is most of an
// attach's time.
func attach(args []string, stdout, stderr io.Writer) (int, error) {
	l, ok := parseAttach(args)
	if !ok || !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return 0, errLocal
	}
	c, err := dialServer(args)
	if err != nil && l.start {
		c, err = startServer(args, l.serverFlags)
		if err != nil {
			fmt.Fprintln(stderr, "kws:", termsafe.Strip(err.Error()))
			return 1, nil
		}
	}
	if err != nil {
		return 0, err
	}
	h := l.hello
	h.Term = os.Getenv("TERM")
	e, err := wire.Attach(c, h, os.Stdin, os.Stdout)
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "kws:", err)
		return 1, nil
	case e.Code != 0:
		fmt.Fprintln(stderr, "kws:", termsafe.Strip(e.Message))
		return e.Code, nil
	case e.Message != "":
		fmt.Fprintln(stdout, termsafe.Strip(e.Message))
	}
	return 0, nil
}

// startServer starts the server of args' data dir, kws-core with the
// global flags flags, and connects to it once it listens; errLocal when
// kws-core is missing, which kws-core's own start then says. The API keys
// in the environment reach the server on a pipe, as kws-core passes them.
func startServer(args, flags []string) (*net.UnixConn, error) {
	core, err := corePath()
	if err != nil {
		return nil, errLocal
	}
	sock, err := wire.SocketPath(dataDir(args))
	if err != nil {
		return nil, err
	}
	launch.CloseInherited()
	keys, env := launch.SplitKeys(os.Environ(), launch.KeyNames(args))
	return launch.DialOrStart(sock, launch.Spec{Exe: core, DataDir: dataDir(args), Flags: flags, Env: env, Keys: keys})
}
