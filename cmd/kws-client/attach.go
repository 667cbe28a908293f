package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/kwsdev/kws/server/wire"
	"github.com/kwsdev/kws/termsafe"
)

// attachHello returns the hello of a command line that attaches a
// terminal to a session of a running server, as kws-core would send it:
// kws alone (the session of the working directory's workspace) and kws
// attach [-t NAME]. --data-dir may be anywhere. Any other word or flag
// (a workstation flag such as --theme, which a new session takes) leaves
// the command to kws-core.
func attachHello(args []string) (wire.Hello, bool) {
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
	if len(words) == 0 {
		ws, err := filepath.Abs(".")
		if err == nil {
			ws, err = filepath.EvalSymlinks(ws)
		}
		return wire.Hello{Mode: "default", Workspace: ws}, err == nil
	}
	if words[0] != "attach" {
		return wire.Hello{}, false
	}
	h := wire.Hello{Mode: "attach"}
	switch rest := words[1:]; {
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

// attach attaches this terminal to the session args name when a server
// runs for their data dir, and returns the exit code; errLocal when
// kws-core must run the command (no server to attach to, no terminal, a
// command line it does not read). Attaching from here saves the whole
// kws's start, which is most of an attach's time.
func attach(args []string, stdout, stderr io.Writer) (int, error) {
	h, ok := attachHello(args)
	if !ok || !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return 0, errLocal
	}
	c, err := dialServer(args)
	if err != nil {
		return 0, err
	}
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
