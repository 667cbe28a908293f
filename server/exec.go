package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/kwsdev/kws/server/wire"
)

// errClientGone is what a command reads from its standard input when the
// client went away before ending it: an input cut short is never taken
// for a whole one.
var errClientGone = errors.New("the client went away before the end of its input")

// frameWriter writes a command's output to the client as frames of one
// type. Writes block while the client is behind, so a command's output
// is never dropped.
type frameWriter struct {
	mu   *sync.Mutex
	conn net.Conn
	typ  byte
}

// Write sends p in frames of at most maxFrame bytes.
func (w frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), wire.MaxFrame)]
		if err := wire.WriteFrame(w.conn, w.typ, chunk); err != nil {
			return n, fmt.Errorf("client: %w", err)
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	return n, nil
}

// exec runs a command for a client: its standard input comes from the
// client's input frames, its output goes back as frames, and its exit
// code ends the connection.
func (d *Daemon) exec(c *net.UnixConn, h wire.Hello) {
	if h.IfServer {
		if d.cfg.Exec == nil || d.cfg.Runs == nil || len(h.Args) == 0 || !d.cfg.Runs(h.Args) {
			_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Local: true})
			return
		}
		if err := wire.WriteFrame(c, wire.FrameRuns, nil); err != nil {
			return
		}
	}
	if d.cfg.Exec == nil || len(h.Args) == 0 {
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 2, Message: "kws server: nothing to run"})
		return
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancelCause(d.ctx)
	defer cancel(nil)
	go func() {
		for {
			typ, payload, err := wire.ReadFrame(c)
			if err != nil {
				pw.CloseWithError(errClientGone)
				cancel(errClientGone)
				return
			}
			if typ != wire.FrameInput {
				continue
			}
			if len(payload) == 0 {
				pw.Close()
				continue
			}
			// A command that stopped reading leaves the rest unread.
			_, _ = pw.Write(payload)
		}
	}()
	var mu sync.Mutex
	code := d.cfg.Exec(ExecRequest{Ctx: ctx, Args: h.Args, Cwd: h.Cwd, Session: h.Session, ModelEnv: h.ModelEnv, Stdin: pr,
		Stdout: frameWriter{mu: &mu, conn: c, typ: wire.FrameOutput},
		Stderr: frameWriter{mu: &mu, conn: c, typ: wire.FrameStderr}})
	pr.CloseWithError(io.EOF)
	mu.Lock()
	_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: code})
	mu.Unlock()
}
