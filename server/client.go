package server

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"
)

// ErrNoServer is returned by Dial when no server answers on the socket.
var ErrNoServer = errors.New("no server running")

// Dial connects to the server listening on socket.
func Dial(socket string) (*net.UnixConn, error) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", ErrNoServer, socket)
		}
		return nil, fmt.Errorf("connect to the server: %w", err)
	}
	return c, nil
}

// DialOrStart connects to the server on socket, first calling start when
// none answers. start launches a server and returns at once; DialOrStart
// then waits for a server to answer (the one started, or one another kws
// started at the same instant), or for exited to report that the started
// one gave up.
func DialOrStart(socket string, start func() (exited <-chan error, err error)) (*net.UnixConn, error) {
	c, err := Dial(socket)
	if !errors.Is(err, ErrNoServer) {
		return c, err
	}
	exited, err := start()
	if err != nil {
		return nil, fmt.Errorf("start the server: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	wait := time.Millisecond
	for {
		c, err := Dial(socket)
		if err == nil || !errors.Is(err, ErrNoServer) {
			return c, err
		}
		select {
		case e := <-exited:
			// A server that lost the race to another one exits at
			// once; the winner answers on the socket shortly.
			exited = nil
			if e != nil && !errors.Is(e, ErrRunning) {
				if c, err := Dial(socket); err == nil {
					return c, nil
				}
				return nil, fmt.Errorf("the server did not start: %w", e)
			}
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server did not answer on %s", socket)
		}
		wait = min(wait*2, 50*time.Millisecond)
	}
}

// sendHello writes the hello. A server that refused the connection at
// once may have closed it before the hello was written: its exit frame,
// returned then, is still there to read and says why.
func sendHello(c net.Conn, h Hello) (*Exit, error) {
	werr := writeJSON(c, frameHello, h)
	if werr == nil {
		return nil, nil
	}
	if typ, payload, err := readFrame(c); err == nil && typ == frameExit {
		var e Exit
		if decode(payload, &e) == nil {
			return &e, nil
		}
	}
	return nil, fmt.Errorf("server: %w", werr)
}

// deref is *e, or the zero Exit.
func deref(e *Exit) Exit {
	if e == nil {
		return Exit{}
	}
	return *e
}

// Request sends a hello that needs no terminal and returns what the
// server answered and how it ended.
func Request(c net.Conn, h Hello) ([]byte, Exit, error) {
	defer c.Close()
	h.Version = protoVersion
	if e, err := sendHello(c, h); e != nil || err != nil {
		return nil, deref(e), err
	}
	var out []byte
	for {
		typ, payload, err := readFrame(c)
		if err != nil {
			return out, Exit{}, fmt.Errorf("server: %w", err)
		}
		switch typ {
		case frameOutput:
			out = append(out, payload...)
		case frameExit:
			var e Exit
			err := decode(payload, &e)
			return out, e, err
		}
	}
}

// Exec runs a kws command in the server: stdin goes to it, its output
// comes back to stdout and stderr, and its exit code is returned.
func Exec(c net.Conn, args []string, cwd string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	defer c.Close()
	if e, err := sendHello(c, Hello{Version: protoVersion, Op: "exec", Args: args, Cwd: cwd}); e != nil || err != nil {
		if e != nil && e.Message != "" {
			fmt.Fprintln(stderr, e.Message)
		}
		return cmp.Or(deref(e).Code, 1), err
	}
	var wmu sync.Mutex
	go func() {
		buf := make([]byte, 256<<10)
		for {
			n, err := stdin.Read(buf)
			if n > 0 {
				wmu.Lock()
				werr := writeFrame(c, frameInput, buf[:n])
				wmu.Unlock()
				if werr != nil {
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					wmu.Lock()
					_ = writeFrame(c, frameInput, nil)
					wmu.Unlock()
				}
				return
			}
		}
	}()
	for {
		typ, payload, err := readFrame(c)
		if err != nil {
			return 1, fmt.Errorf("server: %w", err)
		}
		switch typ {
		case frameOutput:
			if _, err := stdout.Write(payload); err != nil {
				return 1, err
			}
		case frameStderr:
			_, _ = stderr.Write(payload)
		case frameExit:
			var e Exit
			if err := decode(payload, &e); err != nil {
				return 1, fmt.Errorf("server: %w", err)
			}
			if e.Message != "" {
				fmt.Fprintln(stderr, e.Message)
			}
			return e.Code, nil
		}
	}
}

// Attach attaches the terminal on in and out to a session and relays
// between them until the client detaches or the session ends: raw mode,
// the terminal's size, its input and the session's output. It returns how
// the attachment ended; the terminal is restored in every case.
func Attach(c net.Conn, h Hello, in, out *os.File) (Exit, error) {
	defer c.Close()
	fd := int(in.Fd())
	if cols, rows, err := term.GetSize(int(out.Fd())); err == nil {
		h.Size = Size{Cols: cols, Rows: rows}
	}
	h.Version, h.Op = protoVersion, "attach"
	if e, err := sendHello(c, h); e != nil || err != nil {
		return deref(e), err
	}
	typ, payload, err := readFrame(c)
	if err != nil {
		return Exit{}, fmt.Errorf("server: %w", err)
	}
	var e Exit
	if typ == frameExit {
		err := decode(payload, &e)
		return e, err
	}
	var a Attached
	if typ != frameAttached || decode(payload, &a) != nil {
		return Exit{}, fmt.Errorf("server: %w: expected attached, got %q", ErrFrame, typ)
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return Exit{}, fmt.Errorf("terminal: %w", err)
	}
	defer term.Restore(fd, old)
	_, _ = io.WriteString(out, a.Enter)
	defer io.WriteString(out, a.Leave)
	var wmu sync.Mutex
	send := func(typ byte, payload []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return writeFrame(c, typ, payload)
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	// A hangup or kill detaches, as tmux's client does: the terminal is
	// restored and the session goes on.
	var killed atomic.Value
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(stop)
	go func() {
		if sig, ok := <-stop; ok {
			killed.Store(sig.String())
			c.Close()
		}
	}()
	go func() {
		for range winch {
			if cols, rows, err := term.GetSize(int(out.Fd())); err == nil {
				if send(frameSize, []byte(fmt.Sprintf(`{"cols":%d,"rows":%d}`, cols, rows))) != nil {
					return
				}
			}
		}
	}()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 && send(frameInput, buf[:n]) != nil {
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		typ, payload, err := readFrame(c)
		if err != nil {
			if sig, ok := killed.Load().(string); ok {
				return Exit{Code: 1, Message: fmt.Sprintf("[detached (%s)]", sig)}, nil
			}
			if errors.Is(err, io.EOF) {
				return Exit{Code: 1, Message: "lost the server (it stopped or was killed); kws restores the session"}, nil
			}
			return Exit{Code: 1, Message: "lost the server: " + err.Error()}, nil
		}
		switch typ {
		case frameOutput:
			if _, err := out.Write(payload); err != nil {
				return Exit{Code: 1}, err
			}
		case frameExit:
			err := decode(payload, &e)
			return e, err
		}
	}
}
