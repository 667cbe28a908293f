package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kwsdev/kws/server/wire"
)

// privateDir makes dir (mode 0700) when it is missing and checks that it
// is a directory of this user that nobody else may enter: a socket in a
// directory another user controls could be replaced by theirs. A
// directory kws did not create is never changed: one open to others (a
// shared 1777 directory, /tmp) is refused with the reason.
func privateDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("socket directory: %w", err)
	}
	return wire.PrivateDir(dir, os.Getuid())
}

// ErrRunning is returned by Listen when a live server already answers on
// the socket.
var ErrRunning = errors.New("a kws server is already running")

// Listen listens on the socket at path. A socket left by a dead server (a
// connect is refused) is removed and replaced; a live one is left alone
// and ErrRunning returned. The caller holds the data dir's server lock, so
// two servers never race to replace the same socket.
func Listen(path string) (*net.UnixListener, error) {
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return nil, fmt.Errorf("%w on %s", ErrRunning, path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket: %w", err)
	}
	// The directory is the user's alone, so the moment before the chmod
	// exposes nothing; changing the process's umask instead would race
	// every file created meanwhile.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	return ln, nil
}

// noNewPrivs reports whether process pid runs with no_new_privs set.
// kws's sandbox sets it on every agent command it confines, and a child
// cannot clear it: a peer that has it while the server has not is a
// confined command.
func noNewPrivs(pid string) (bool, error) {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "NoNewPrivs:"); ok {
			return strings.TrimSpace(v) == "1", nil
		}
	}
	return false, fmt.Errorf("/proc/%s/status has no NoNewPrivs line", pid)
}

// checkPeer refuses a connection from another user, and one from an agent
// command kws's sandbox confined: through the server it could type into
// the session's shell panes, outside its sandbox. When the server itself
// runs with no_new_privs (a hardened service manager), the two cannot be
// told apart and the uid check stands alone.
func checkPeer(c *net.UnixConn) error {
	uid, pid, err := wire.PeerCred(c)
	if err != nil {
		return fmt.Errorf("read the peer's credentials: %w", err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("the connection is from uid %d, not this server's user", uid)
	}
	if self, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err != nil || self == 1 {
		return nil
	}
	peer, err := noNewPrivs(strconv.Itoa(pid))
	if err != nil {
		return fmt.Errorf("read the peer's status: %w", err)
	}
	if peer {
		return errors.New("the connection is from a sandboxed command (no_new_privs): agents' commands may not drive the server")
	}
	return nil
}

// lockServer takes the data dir's server lock (DATA/server.lock) without
// waiting. Only the process holding it may serve the data dir; the lock
// goes with the process, so a killed server leaves none behind.
func lockServer(dataDir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dataDir, "server.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w for %s", ErrRunning, dataDir)
		}
		return nil, fmt.Errorf("server lock: %w", err)
	}
	// The lock names its holder, for a person looking for the server.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
