package panes

import (
	"os"

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
// names. For a pane restored after kws restarted (s carries the saved
// working directory, pane.StateDir) the shell starts in that directory
// when it still is one, else in opts.Dir, and its screen opens with a
// notice that the old screen is gone. For a new pane it returns opts.
func ShellOptions(opts pty.Options, s pane.Spec) pty.Options {
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
