package wire

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/term"
)

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
	h.Version, h.Op = Version, "attach"
	if e, err := SendHello(c, h); e != nil || err != nil {
		if e != nil {
			return *e, err
		}
		return Exit{}, err
	}
	typ, payload, err := ReadFrame(c)
	if err != nil {
		return Exit{}, fmt.Errorf("server: %w", err)
	}
	var e Exit
	if typ == FrameExit {
		err := Decode(payload, &e)
		return e, err
	}
	var a Attached
	if typ != FrameAttached || Decode(payload, &a) != nil {
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
		return WriteFrame(c, typ, payload)
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
				if send(FrameSize, []byte(fmt.Sprintf(`{"cols":%d,"rows":%d}`, cols, rows))) != nil {
					return
				}
			}
		}
	}()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 && send(FrameInput, buf[:n]) != nil {
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		typ, payload, err := ReadFrame(c)
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
		case FrameOutput:
			if _, err := out.Write(payload); err != nil {
				return Exit{Code: 1}, err
			}
		case FrameExit:
			err := Decode(payload, &e)
			return e, err
		}
	}
}
