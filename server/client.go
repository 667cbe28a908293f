package server

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

// deref is *e, or the zero Exit.
func deref(e *wire.Exit) wire.Exit {
	if e == nil {
		return wire.Exit{}
	}
	return *e
}

// Request sends a hello that needs no terminal and returns what the
// server answered and how it ended.
func Request(c net.Conn, h wire.Hello) ([]byte, wire.Exit, error) {
	defer c.Close()
	h.Version = wire.Version
	if e, err := wire.SendHello(c, h); e != nil || err != nil {
		return nil, deref(e), err
	}
	var out []byte
	for {
		typ, payload, err := wire.ReadFrame(c)
		if err != nil {
			return out, wire.Exit{}, fmt.Errorf("server: %w", err)
		}
		switch typ {
		case wire.FrameOutput:
			out = append(out, payload...)
		case wire.FrameExit:
			var e wire.Exit
			err := wire.Decode(payload, &e)
			return out, e, err
		}
	}
}

// Terminate stops the server on socket as a SIGTERM does (its sessions
// stop, and the next server restores them). It is for a server of an
// older protocol version, which refuses every request of this client,
// kill-server too: it signals the process at the other end of the socket,
// which must be this user's, and waits until nothing answers there.
func Terminate(socket string) error {
	return terminate(socket, func(c *net.UnixConn, pid int) error {
		c.Close()
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			return fmt.Errorf("stop the server (pid %d): %w", pid, err)
		}
		return nil
	})
}

// KillServer asks the server on socket to end every session and stop
// (the kill-server operation) and returns once its process has exited,
// so nothing it writes on the way out (session records, its log) races
// with what the caller does next. A server of an older protocol, which
// refuses the operation, comes back as the refusal's exit (OldProtocol).
func KillServer(socket string) (wire.Exit, error) {
	var refused wire.Exit
	err := terminate(socket, func(c *net.UnixConn, _ int) error {
		_, e, err := Request(c, wire.Hello{Op: "kill-server"})
		if err == nil && e.Code != 0 {
			refused = e
			return errRefused
		}
		return err
	})
	if errors.Is(err, errRefused) {
		return refused, nil
	}
	return wire.Exit{}, err
}

// errRefused ends terminate when the server refused to stop.
var errRefused = errors.New("refused")

// terminate finds the process of the server on socket, stops it with
// stop (given the connection, which it closes, and the process id), and
// waits until it has exited.
func terminate(socket string, stop func(c *net.UnixConn, pid int) error) error {
	c, err := wire.Dial(socket)
	if err != nil {
		return err
	}
	// wire.Dial has checked the server runs as this user.
	_, pid, err := wire.PeerCred(c)
	if err != nil {
		c.Close()
		return fmt.Errorf("the server's process: %w", err)
	}
	if err := stop(c, pid); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for wait := time.Millisecond; running(pid); wait = min(2*wait, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the server (pid %d) still runs 30 s after it was told to stop", pid)
		}
		time.Sleep(wait)
	}
	return nil
}

// running reports whether process pid exists and has not exited (a
// zombie, waiting for its parent to reap it, has).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z' && stat[i+2] != 'X'
}

// OldProtocol reports whether e is a server's refusal of this client's
// protocol version. Servers of every version word it so ("kws server:
// protocol 1, this client speaks 2: …").
func OldProtocol(e wire.Exit) bool {
	return e.Code == 2 && strings.Contains(e.Message, "this client speaks")
}
