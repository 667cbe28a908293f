package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockFile is the file in a session folder that the process holding the
// session open keeps an exclusive lock on; it holds that process's id.
const LockFile = "lock"

// ErrRunning is matched (errors.Is) by the error Open returns when another
// process has the session open.
var ErrRunning = errors.New("transcript: running in another process")

// RunningError is the error of Open for a session another process has
// open. Nothing in the session was changed.
type RunningError struct {
	ID  string
	PID int // 0 when the holder's pid could not be read
}

// Error names the session and the process running it.
func (e *RunningError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("session %s is running in another process; wait for it to end or stop it, then resume", e.ID)
	}
	return fmt.Sprintf("session %s is running (pid %d); wait for it to end or stop it, then resume", e.ID, e.PID)
}

// Is reports whether target is ErrRunning.
func (e *RunningError) Is(target error) bool { return target == ErrRunning }

// lockDir takes the session's lock without waiting and records this
// process's id in the lock file. The lock lasts until the returned file is
// closed or the process ends, however it ends, so a killed run never
// leaves a stale lock. A lock held by any other open file, in this process
// or another, fails with a *RunningError.
func lockDir(dir, id string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: lock %s: %w", id, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid := readPID(f)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &RunningError{ID: id, PID: pid}
		}
		return nil, fmt.Errorf("transcript: lock %s: %w", path, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(pid, 0)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("transcript: lock %s: %w", path, err)
	}
	return f, nil
}

// Held reports whether a process (this one included) holds session id's
// lock now: a session whose summary says running but whose lock is free
// was cut short (its process died) and can be resumed.
func Held(dataDir, id string) bool {
	f, err := os.Open(filepath.Join(Dir(dataDir), id, LockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// readPID returns the process id written in a lock file, or 0.
func readPID(f *os.File) int {
	var buf [24]byte
	n, _ := f.ReadAt(buf[:], 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
