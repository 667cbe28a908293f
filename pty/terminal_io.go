package pty

import (
	"fmt"
	"sync"
	"time"

	"github.com/creack/pty"
)

// readOutput feeds the program's output into the emulator until the pty
// reports end of file (the last holder of the terminal exited) or is
// closed.
func (s *Terminal) readOutput() {
	defer s.wg.Done()
	defer close(s.readEOF)
	buf := make([]byte, 32*1024)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			s.output(buf[:n])
		}
		if err != nil {
			s.markDirty()
			return
		}
	}
}

// output writes program output into the emulator under the terminal lock
// and schedules a redraw. The lock is taken per piece of outputPiece
// bytes, so keys, resizes and snapshots wait for one piece at most while a
// flood of output is parsed.
func (s *Terminal) output(p []byte) {
	synced := false
	for off := 0; off < len(p); off += outputPiece {
		s.mu.Lock()
		_, _ = s.emu.Write(p[off:min(off+outputPiece, len(p))])
		synced = s.emu.Synchronized()
		s.mu.Unlock()
	}
	if synced {
		s.holdFrame()
		return
	}
	s.markDirty()
}

// syncHold is the longest a frame drawn inside synchronized output waits
// to be shown, as other terminals bound it, should its end never come.
const syncHold = time.Second

// holdFrame holds the screen's notification while the program draws a
// frame inside synchronized output (mode 2026): the frame is shown when
// the program ends it, or after syncHold at the latest.
func (s *Terminal) holdFrame() {
	if s.holding.CompareAndSwap(false, true) {
		time.AfterFunc(syncHold, func() {
			s.holding.Store(false)
			s.markDirty()
		})
	}
}

// outputPiece is the most output parsed under one hold of the terminal
// lock.
const outputPiece = 4096

// drainReplies moves everything the emulator produces for the program
// (query replies and encoded input) into the input queue without ever
// blocking, so the emulator's writers never wait on the pty.
func (s *Terminal) drainReplies() {
	defer s.wg.Done()
	defer s.input.close()
	buf := make([]byte, 4096)
	for {
		n, err := s.emu.Read(buf)
		if n > 0 {
			s.input.push(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// writeInput writes queued input to the pty. Write errors (the program
// has exited) drop the data; the loop ends when the queue is closed.
func (s *Terminal) writeInput() {
	defer s.wg.Done()
	for {
		b, ok := s.input.pop()
		if !ok {
			return
		}
		_, _ = s.master.Write(b)
	}
}

// Write sends raw bytes to the program through the emulator's input pipe,
// in order with keys, pastes and query replies.
func (s *Terminal) Write(p []byte) (int, error) {
	if err := s.toProgram(func(e Emulator) { e.SendText(string(p)) }); err != nil {
		return 0, err
	}
	return len(p), nil
}

// toProgram hands the program input through the emulator, under the
// lock, and marks it as input, so that the program's answer is not paced
// (see coalesce).
func (s *Terminal) toProgram(send func(e Emulator)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.typed.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	send(s.emu)
	return nil
}

// SendKey encodes k for the program, honouring the modes it has set
// (application cursor keys), and sends it.
func (s *Terminal) SendKey(k Key) error {
	return s.toProgram(func(e Emulator) { e.SendKey(k) })
}

// SendMouse reports a mouse event to the program in the encoding it asked
// for, through the emulator like every other input, and reports whether
// the program wanted it.
func (s *Terminal) SendMouse(ev Mouse) (wanted bool, err error) {
	err = s.toProgram(func(e Emulator) {
		if b := EncodeMouse(ev, e.Modes()); b != nil {
			wanted = true
			e.SendText(string(b))
		}
	})
	return wanted, err
}

// Focus tells the program that the pane gained (true) or lost focus, as
// CSI I or CSI O, when it asked for focus events (mode 1004); otherwise it
// sends nothing.
func (s *Terminal) Focus(focused bool) error {
	return s.toProgram(func(e Emulator) { e.SendText(EncodeFocus(focused, e.Modes())) })
}

// Paste sends text as a paste: bracketed when the program enabled
// bracketed paste, so a shell does not run pasted lines on its own.
func (s *Terminal) Paste(text string) error {
	return s.toProgram(func(e Emulator) { e.Paste(text) })
}

// Resize changes the emulator's size, keeping the cursor line visible
// when the screen shrinks, and then the pty's, which sends SIGWINCH to the
// program.
func (s *Terminal) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 {
		return fmt.Errorf("pty: resize to %d×%d: size must be positive", cols, rows)
	}
	if s.closed.Load() {
		return ErrClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emu.Resize(cols, rows)
	if err := pty.Setsize(s.master, winsize(cols, rows, s.cellW, s.cellH)); err != nil {
		return fmt.Errorf("pty: set size %d×%d: %w", cols, rows, err)
	}
	s.markDirty()
	return nil
}

// cellSizer is an emulator that answers pixel size queries (XTWINOPS 14
// and 16) and so needs the cell size; FastEmulator is one.
type cellSizer interface {
	SetCellSize(width, height int)
}

// SetCellSize tells the terminal the size in pixels of one cell on the
// user's screen, once the UI knows it: the emulator answers the program's
// pixel size queries with it (before, it assumes 10 × 20) and the pty's
// window size carries it (before, its pixel fields are zero, unknown), for
// programs that draw images. Sizes not above zero are ignored.
func (s *Terminal) SetCellSize(width, height int) error {
	if width <= 0 || height <= 0 {
		return nil
	}
	if s.closed.Load() {
		return ErrClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cellW, s.cellH = width, height
	if cs, ok := s.emu.(cellSizer); ok {
		cs.SetCellSize(width, height)
	}
	cols, rows := s.emu.Size()
	if err := pty.Setsize(s.master, winsize(cols, rows, width, height)); err != nil {
		return fmt.Errorf("pty: set cell size %d×%d: %w", width, height, err)
	}
	return nil
}

// Size returns the screen size in columns and rows.
func (s *Terminal) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Size()
}

// inputQueue is an unbounded FIFO of bytes for the program. Pushing never
// blocks, which keeps the emulator's reply writer from waiting on a
// program that is not reading its input.
type inputQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
}

// init prepares the queue for use.
func (q *inputQueue) init() {
	q.cond = sync.NewCond(&q.mu)
}

// push appends a copy of p.
func (q *inputQueue) push(p []byte) {
	q.mu.Lock()
	q.buf = append(q.buf, p...)
	q.mu.Unlock()
	q.cond.Signal()
}

// pop waits for data and returns all of it, or false once the queue is
// closed and empty.
func (q *inputQueue) pop() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.buf) == 0 {
		return nil, false
	}
	b := q.buf
	q.buf = nil
	return b, true
}

// close wakes the consumer and makes pop report false once drained.
func (q *inputQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
