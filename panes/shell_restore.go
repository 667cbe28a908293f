package panes

import (
	"os"
	"slices"
	"strconv"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
)

// PersistState returns the shell's working directory (pane.StateDir), so
// that a restored pane starts its shell there. Once the shell has exited
// it is the directory read last.
func (p *ShellPane) PersistState() map[string]string {
	if dir, err := p.sess.Dir(); err == nil {
		p.dir = dir
	}
	if p.dir == "" {
		return nil
	}
	return map[string]string{pane.StateDir: p.dir}
}

// restartNotice opens a restored shell's screen, a line short enough for
// a narrow pane (the directory follows on its own line).
const restartNotice = "[kws restarted this shell; the old screen is gone]"

// ShellOptions returns the options of the shell that the pane spec s
// names: its id as $TMUX_PANE, its directory, and the command it runs
// with sh -c instead of the shell when it has one. For a pane restored after kws restarted (s carries the saved
// working directory, pane.StateDir) the shell starts in that directory
// when it still is one, else in opts.Dir, and its screen opens with a
// notice that the old screen is gone. For a new pane it returns opts.
func ShellOptions(opts pty.Options, s pane.Spec) pty.Options {
	if s.ID > 0 {
		// tmux's $TMUX_PANE: the tmux kws puts on the PATH targets this
		// pane by default, as tmux does.
		opts.Env = append(slices.Clip(opts.Env), "TMUX_PANE=%"+strconv.Itoa(s.ID))
	}
	if s.Dir != "" {
		opts.Dir = s.Dir
	}
	if s.Command != "" {
		opts.Shell, opts.Args = "/bin/sh", []string{"-c", s.Command}
	}
	saved := s.State[pane.StateDir]
	if saved == "" {
		return opts
	}
	if fi, err := os.Stat(saved); err == nil && fi.IsDir() {
		opts.Dir = saved
		opts.Notice = restartNotice + "\n[in " + saved + "]"
		return opts
	}
	where := opts.Dir
	if where == "" {
		where = "the current directory"
	}
	opts.Notice = restartNotice + "\n[in " + where + ": " + saved + " is gone]"
	return opts
}
