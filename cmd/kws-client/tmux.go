package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kwsdev/kws/internal/tmuxshim"
	"github.com/kwsdev/kws/server/wire"
)

// tmux runs a tmux command line, as the thin client does when it is run
// as tmux (the link kws puts on its shell panes' PATH): each command goes
// to the session of the pane it runs in, over the server's socket, and
// the first that fails ends the line with its exit code.
func tmux(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	plan, err := tmuxshim.Parse(args, os.Getenv("TMUX_PANE"))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if plan.Version {
		fmt.Fprintln(stdout, tmuxshim.Version)
		return 0
	}
	sock, err := wire.SocketPath(dataDir(nil))
	if err != nil {
		fmt.Fprintln(stderr, "tmux (kws):", err)
		return 1
	}
	wd, _ := os.Getwd()
	for _, cmd := range plan.Commands {
		c, err := wire.Dial(sock)
		if err != nil {
			fmt.Fprintln(stderr, "tmux (kws): no kws server: this tmux works in the shell panes of a kws session:", err)
			return 1
		}
		e, err := wire.Exec(c, wire.Hello{Args: cmd, Cwd: wd, Session: os.Getenv(wire.SessionEnv)}, stdin, stdout, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "tmux (kws):", err)
			return 1
		}
		if e.Code != 0 {
			return e.Code
		}
	}
	return 0
}
