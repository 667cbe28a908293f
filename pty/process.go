package pty

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/termsafe"
)

// Pid returns the process id of the shell.
func (s *Terminal) Pid() int {
	return s.cmd.Process.Pid
}

// ErrExited is matched (errors.Is) by the error of Dir once the program
// has exited: it has no working directory any more.
var ErrExited = errors.New("pty: the program has exited")

// Dir returns the working directory of the program the terminal started
// (the shell, not a job it runs), as the kernel knows it: it follows every
// cd. It reads /proc, so it works on Linux only, and fails with ErrExited
// once the program has exited.
func (s *Terminal) Dir() (string, error) {
	select {
	case <-s.done:
		return "", ErrExited
	default:
	}
	dir, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(s.Pid()), "cwd"))
	if err != nil {
		return "", fmt.Errorf("pty: working directory of pid %d: %w", s.Pid(), err)
	}
	return dir, nil
}

// JobName returns the name of the job in the terminal's foreground (the
// leader of its process group, as /proc/PID/comm has it: "vim", "make"),
// or "" when the shell is at its prompt or the name cannot be read.
func (s *Terminal) JobName() string {
	j := s.Job()
	if j == 0 {
		return ""
	}
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(j), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(comm))
}

// show writes notice, made safe and kept to one line, on the screen as if
// the program had printed it, then moves to the next line.
func (s *Terminal) show(notice string) {
	if notice == "" {
		return
	}
	for _, line := range strings.Split(notice, "\n") {
		s.output([]byte(termsafe.OneLine(line) + "\r\n"))
	}
}
