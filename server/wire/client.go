package wire

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// ErrNoServer is returned by Dial when no server answers on the socket.
var ErrNoServer = errors.New("no server running")

// ErrUntrusted is wrapped by Dial's error for a socket that another user
// could have put there, or whose server runs as another user: nothing is
// sent to it.
var ErrUntrusted = errors.New("refusing a socket that is not this user's own")

// Dial connects to the server listening on socket, after checking that it
// is this user's: its directory belongs to this user and nobody else may
// enter it, and the process listening runs as this user (SO_PEERCRED).
// Otherwise another user could stand in for the server and read the
// command lines, input and keys sent to it, and write to the terminal.
func Dial(socket string) (*net.UnixConn, error) {
	return dialAs(socket, os.Getuid())
}

// dialAs is Dial for the user uid.
func dialAs(socket string, uid int) (*net.UnixConn, error) {
	if err := PrivateDir(filepath.Dir(socket), uid); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w on %s", ErrNoServer, socket)
		}
		return nil, err
	}
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", ErrNoServer, socket)
		}
		return nil, fmt.Errorf("connect to the server: %w", err)
	}
	peer, _, err := PeerCred(c)
	if err == nil && peer != uid {
		err = fmt.Errorf("%w: the server on %s runs as uid %d", ErrUntrusted, socket, peer)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// PrivateDir checks that dir is a directory (not a link to one) owned by
// uid that no other user may enter or write: a socket in it is the user's.
func PrivateDir(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir() || !ok:
		return fmt.Errorf("%w: %s is not a directory", ErrUntrusted, dir)
	case int(st.Uid) != uid:
		return fmt.Errorf("%w: socket directory %s belongs to uid %d", ErrUntrusted, dir, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%w: socket directory %s is open to other users (mode %04o); use a private one (mode 0700)", ErrUntrusted, dir, fi.Mode().Perm())
	}
	return nil
}

// PeerCred is the user id and process id of the process at the other
// end of c (SO_PEERCRED).
func PeerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if credErr != nil {
		return -1, 0, fmt.Errorf("peer's credentials: %w", credErr)
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// SendHello writes the hello. A server that refused the connection at
// once may have closed it before the hello was written: its exit frame,
// returned then, is still there to read and says why.
func SendHello(c net.Conn, h Hello) (*Exit, error) {
	werr := WriteJSON(c, FrameHello, h)
	if werr == nil {
		return nil, nil
	}
	if typ, payload, err := ReadFrame(c); err == nil && typ == FrameExit {
		var e Exit
		if Decode(payload, &e) == nil {
			return &e, nil
		}
	}
	return nil, fmt.Errorf("server: %w", werr)
}

// Exec runs a kws command in the server: h.Args on the server's stores,
// as if in h.Cwd. stdin goes to it, its output comes back to stdout and
// stderr, and the exit returned holds its exit code; a message the server
// ends with is printed on stderr. With h.IfServer, whatever ends the
// connection before the server's FrameRuns (a command it does not run, a
// refusal, a server of another protocol version, a cut connection) comes
// back as Exit.Local, with nothing printed and nothing of stdin read:
// nothing ran, and the caller runs the command itself, which meets the
// same refusal with the whole kws's own error.
func Exec(c net.Conn, h Hello, stdin io.Reader, stdout, stderr io.Writer) (Exit, error) {
	defer c.Close()
	h.Version, h.Op = Version, "exec"
	if h.IfServer {
		if !runs(c, h) {
			return Exit{Local: true}, nil
		}
	} else if e, err := SendHello(c, h); e != nil || err != nil {
		if e == nil {
			return Exit{Code: 1}, err
		}
		if e.Message != "" {
			fmt.Fprintln(stderr, e.Message)
		}
		return Exit{Code: cmp.Or(e.Code, 1), Message: e.Message}, err
	}
	var wmu sync.Mutex
	go func() {
		buf := make([]byte, 256<<10)
		for {
			n, err := stdin.Read(buf)
			if n > 0 {
				wmu.Lock()
				werr := WriteFrame(c, FrameInput, buf[:n])
				wmu.Unlock()
				if werr != nil {
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					wmu.Lock()
					_ = WriteFrame(c, FrameInput, nil)
					wmu.Unlock()
				}
				return
			}
		}
	}()
	for {
		typ, payload, err := ReadFrame(c)
		if err != nil {
			return Exit{Code: 1}, fmt.Errorf("server: %w", err)
		}
		switch typ {
		case FrameOutput:
			if _, err := stdout.Write(payload); err != nil {
				return Exit{Code: 1}, err
			}
		case FrameStderr:
			_, _ = stderr.Write(payload)
		case FrameExit:
			var e Exit
			if err := Decode(payload, &e); err != nil {
				return Exit{Code: 1}, fmt.Errorf("server: %w", err)
			}
			if e.Message != "" {
				fmt.Fprintln(stderr, e.Message)
			}
			return e, nil
		}
	}
}

// runs sends the hello of an exec with IfServer and reports whether the
// server answered FrameRuns: it runs the command.
func runs(c net.Conn, h Hello) bool {
	if e, err := SendHello(c, h); e != nil || err != nil {
		return false
	}
	typ, _, err := ReadFrame(c)
	return err == nil && typ == FrameRuns
}
