package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/kwsdev/kws/internal/tmuxshim"
)

// runAsTmux runs a tmux command line, for kws run as tmux (the link kws
// puts on its shell panes' PATH, to this program when no thin client is
// beside it): each command is the kws command tmuxshim makes of it, sent
// to the session of the pane it runs in. It returns the exit code of the
// first that fails, else 0.
func runAsTmux(args []string) int {
	plan, err := tmuxshim.Parse(args, os.Getenv("TMUX_PANE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if plan.Version {
		fmt.Println(tmuxshim.Version)
		return 0
	}
	for _, cmd := range plan.Commands {
		root := newRoot()
		root.g.argv = cmd
		root.SetArgs(cmd)
		if err := root.Execute(); err != nil {
			if !errors.Is(err, errPrinted) {
				fmt.Fprintln(os.Stderr, errorLine(err))
			}
			var ee *exitError
			if errors.As(err, &ee) {
				return ee.code
			}
			return 1
		}
	}
	return 0
}
