// Package launch starts a data dir's kws server in the background and
// waits until it listens, for kws-core and the thin client alike: both
// ends of the pipe on which a starting server says it listens, the API
// keys a starting kws hands the server on a pipe instead of its
// environment, and the descriptors no server may inherit. It links the
// standard library, server/wire and config only, so that the thin client
// stays small.
package launch

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

const (
	// ReadyEnv names the variable that tells a starting server which
	// descriptor to write one byte to once it listens.
	ReadyEnv = "KWS_READY_FD"
	// ExitRunning is the exit code of a server that found another one
	// serving its data dir.
	ExitRunning = 3
	// timeout is how long a client waits for a server it started.
	timeout = 30 * time.Second
)

// ErrRunning is Started.Wait's error when the server started gave way to
// another one serving the data dir.
var ErrRunning = errors.New("another kws server serves the data dir")

// Spec says how to start a server.
type Spec struct {
	// Exe is the whole kws (kws-core); DataDir the data dir it serves.
	Exe, DataDir string
	// Flags are the global flags the server takes before its command
	// (--sidecar-model FILE).
	Flags []string
	// Env is the server's environment, without the API keys; Keys are
	// the keys, passed on a pipe (Hold).
	Env  []string
	Keys map[string]string
}

// Started is a server that was started and may not listen yet.
type Started struct {
	ready  *os.File
	exited chan error
	log    string
}

// Start starts the server s describes in its own session and process
// group, without a terminal, in /, with its output appended to
// DATA/logs/server.out, and returns at once.
func Start(s Spec) (*Started, error) {
	dataDir, err := filepath.Abs(s.DataDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dataDir, "logs"), 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	logPath := filepath.Join(dataDir, "logs", "server.out")
	logF, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	defer logF.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the server: %w", err)
	}
	defer readyW.Close()
	args := append([]string{s.Exe, "--data-dir", dataDir}, s.Flags...)
	c := &exec.Cmd{Path: s.Exe, Args: append(args, "server"), Dir: "/", Stdout: logF, Stderr: logF,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}, ExtraFiles: []*os.File{readyW}}
	c.Env = append(append([]string(nil), s.Env...), ReadyEnv+"=3")
	if len(s.Keys) > 0 {
		keys, err := Hold(s.Keys)
		if err != nil {
			readyR.Close()
			return nil, err
		}
		defer keys.Close()
		c.ExtraFiles = append(c.ExtraFiles, keys)
		c.Env = append(c.Env, HeldEnv+"=4")
	}
	if err := c.Start(); err != nil {
		readyR.Close()
		return nil, fmt.Errorf("start the server: %w", err)
	}
	p := &Started{ready: readyR, exited: make(chan error, 1), log: logPath}
	go func() {
		err := c.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == ExitRunning {
			err = ErrRunning
		} else if err == nil {
			err = errors.New("it exited")
		}
		p.exited <- err
	}()
	return p, nil
}

// Wait waits until the server listens and returns nil, or returns why it
// will not: ErrRunning when it gave way to another server, which may
// still be starting.
func (p *Started) Wait() error {
	defer p.ready.Close()
	_ = p.ready.SetReadDeadline(time.Now().Add(timeout))
	var b [1]byte
	if n, err := p.ready.Read(b[:]); n == 1 {
		return nil
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("the server did not listen within %v (its output: %s)", timeout, p.log)
	}
	// Every copy of the pipe's write end is closed: the server exited.
	err := <-p.exited
	if errors.Is(err, ErrRunning) {
		return err
	}
	return fmt.Errorf("the server did not start: %w (its output: %s)", err, p.log)
}

// Listening tells the client that started this server, if one did, that
// it listens: the byte on the descriptor $KWS_READY_FD names. The
// variable goes, so that nothing the server starts sees it.
func Listening() {
	fd := os.Getenv(ReadyEnv)
	if fd == "" {
		return
	}
	os.Unsetenv(ReadyEnv)
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return
	}
	f := os.NewFile(uintptr(n), "ready")
	_, _ = f.Write([]byte{1})
	f.Close()
}

// DialOrStart connects to the server on socket, starting one as s says
// when none answers, and waits for it to listen. A server that gives way
// to another (two clients started one each at the same instant) leaves
// the client to wait for the other one.
func DialOrStart(socket string, s Spec) (*net.UnixConn, error) {
	c, err := wire.Dial(socket)
	if !errors.Is(err, wire.ErrNoServer) {
		return c, err
	}
	p, err := Start(s)
	if err != nil {
		return nil, err
	}
	if err := p.Wait(); err != nil && !errors.Is(err, ErrRunning) {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		c, err := wire.Dial(socket)
		if err == nil || !errors.Is(err, wire.ErrNoServer) {
			return c, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server did not answer on %s", socket)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// CloseInherited marks every open descriptor above stderr close-on-exec,
// or a descriptor the process's parent left open (a terminal's, a
// socket's, a pipe's) would reach every program it starts: a server
// holding a pipe open keeps its reader waiting, and an agent's command
// could use what it points at.
func CloseInherited() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
