package app

import (
	"fmt"
	"os"
	"path/filepath"
)

// tmuxEnv is what a server session's shell panes get so that programs in
// them that drive tmux (agent launchers) drive kws: a tmux on the PATH
// that is kws itself (see internal/tmuxshim), and TMUX set, which they
// check to know they run in a multiplexer. The link lives in the data
// dir, which only this user may enter; it is made afresh for each
// session, so it names the program that runs now. When it cannot be made
// the panes get no tmux and the reason is returned.
func (st *Stores) tmuxEnv() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("tmux for shell panes: %w", err)
	}
	if filepath.Base(exe) == "kws-core" {
		// The thin client beside kws-core starts in a few milliseconds;
		// launchers run tmux often.
		if thin := filepath.Join(filepath.Dir(exe), "kws"); isFile(thin) {
			exe = thin
		}
	}
	dir := filepath.Join(st.opts.DataDir, "bin")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("tmux for shell panes: %w", err)
	}
	link := filepath.Join(dir, "tmux")
	tmp := link + ".new"
	_ = os.Remove(tmp)
	if err := os.Symlink(exe, tmp); err != nil {
		return nil, fmt.Errorf("tmux for shell panes: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		return nil, fmt.Errorf("tmux for shell panes: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("tmux for shell panes: %w", err)
	}
	return []string{
		"PATH=" + abs + string(os.PathListSeparator) + os.Getenv("PATH"),
		fmt.Sprintf("TMUX=%s,%d,0", st.opts.Socket, os.Getpid()),
	}, nil
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
