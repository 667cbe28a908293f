// Package proctest finds processes by what their command line holds, for
// tests that check that nothing a command started outlived it.
package proctest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Marked lists the /proc/PID/cmdline files of the processes whose command
// line holds marker (a test starts them under a unique name with bash's
// exec -a).
func Marked(marker string) []string {
	var out []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), marker) {
			out = append(out, f)
		}
	}
	return out
}

// WaitGone waits, without polling, until no process's command line holds
// marker: it sleeps on a pidfd of each one left until that one exits. It
// returns what is still there after limit, a bound on a test that would
// otherwise hang, or the error that kept it from waiting.
func WaitGone(marker string, limit time.Duration) ([]string, error) {
	deadline := time.Now().Add(limit)
	for {
		left := Marked(marker)
		if len(left) == 0 {
			return nil, nil
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(left[0])))
		if err != nil {
			return left, err
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if errors.Is(err, unix.ESRCH) {
			continue // it exited between the scan and the open
		}
		if err != nil {
			return left, fmt.Errorf("pidfd_open %d: %w", pid, err)
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			unix.Close(fd)
			return left, nil
		}
		_, err = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(wait.Milliseconds())+1)
		unix.Close(fd)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return left, fmt.Errorf("poll pidfd %d: %w", pid, err)
		}
	}
}

// Signal makes a named pipe at path through which a process under test
// tells the test it got somewhere (echo > path). Its wait blocks, without
// polling, until the process has written and closed its end, or for at
// most limit, a bound on a test that would otherwise hang.
func Signal(path string) (wait func(limit time.Duration) error, err error) {
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("mkfifo %s: %w", path, err)
	}
	return func(limit time.Duration) error {
		// Opened without blocking, the pipe reports nothing until a
		// writer has come; then POLLIN or, once it has gone, POLLHUP.
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", path, err)
		}
		defer unix.Close(fd)
		deadline := time.Now().Add(limit)
		for {
			wait := time.Until(deadline)
			if wait <= 0 {
				return fmt.Errorf("%s: no signal in %s", path, limit)
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, int(wait.Milliseconds())+1)
			switch {
			case errors.Is(err, unix.EINTR):
			case err != nil:
				return fmt.Errorf("poll %s: %w", path, err)
			case n > 0:
				return nil
			}
		}
	}, nil
}
