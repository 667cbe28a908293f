package pty

import (
	"io"
	"sync"
	"unicode/utf8"
)

// maxQueued is how many bytes of replies and input may wait for Read
// before the writers block, as the Emulator contract allows.
const maxQueued = 1 << 20

// replyQueue carries replies and encoded input to Read in order. Pushing
// does not block until a megabyte waits, so a reader that pauses for a
// moment never stalls output parsing.
type replyQueue struct {
	mu   sync.Mutex
	cond sync.Cond
	// buf[off:] is what waits to be read.
	buf    []byte
	off    int
	closed bool
}

// init prepares the queue for use.
func (q *replyQueue) init() {
	q.cond.L = &q.mu
}

// push appends a copy of p, waiting while the queue is full, and moves
// the unread bytes to the front once most of the buffer has been read.
// After close it drops p.
func (q *replyQueue) push(p []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf)-q.off >= maxQueued && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return
	}
	if q.off > len(q.buf)/2 {
		q.buf, q.off = q.buf[:copy(q.buf, q.buf[q.off:])], 0
	}
	q.buf = append(q.buf, p...)
	q.cond.Broadcast()
}

// read waits for queued bytes and moves as many as fit into p. It returns
// io.EOF once the queue is closed.
func (q *replyQueue) read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.off == len(q.buf) && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return 0, io.EOF
	}
	n := copy(p, q.buf[q.off:])
	if q.off += n; q.off == len(q.buf) {
		q.buf, q.off = q.buf[:0], 0
		if cap(q.buf) > maxQueued {
			q.buf = nil
		}
	}
	q.cond.Broadcast()
	return n, nil
}

// close ends read and push and drops what is queued.
func (q *replyQueue) close() {
	q.mu.Lock()
	q.closed, q.buf, q.off = true, nil, 0
	q.mu.Unlock()
	q.cond.Broadcast()
}

// SendKey encodes k with EncodeKey for the current input modes and queues
// it on Read.
func (e *FastEmulator) SendKey(k Key) {
	if b := EncodeKey(k, e.Modes()); len(b) > 0 {
		e.in.push(b)
	}
}

// SendText queues raw bytes for the program.
func (e *FastEmulator) SendText(text string) {
	if text != "" {
		e.in.push([]byte(text))
	}
}

// Paste queues text for the program, bracketed when the program enabled
// bracketed paste; end markers inside text are removed first.
func (e *FastEmulator) Paste(text string) {
	text = sanitizePaste(text)
	if e.modes.BracketedPaste {
		text = "\x1b[200~" + text + pasteEnd
	}
	e.SendText(text)
}

// Read returns replies and encoded input for the program, in the order
// they were produced, and io.EOF after Close.
func (e *FastEmulator) Read(p []byte) (int, error) {
	return e.in.read(p)
}

// Close ends Read with io.EOF and drops input that was not read. It is
// safe to call while another goroutine is in Read.
func (e *FastEmulator) Close() error {
	e.in.close()
	return nil
}

// Size returns the screen size.
func (e *FastEmulator) Size() (cols, rows int) {
	return e.cols, e.rows
}

// Cell returns the visible cell at x, y, or BlankCell outside the screen.
func (e *FastEmulator) Cell(x, y int) Cell {
	if x < 0 || y < 0 || x >= e.cols || y >= e.rows {
		return BlankCell
	}
	return e.exportCell(e.scr.lines[y].c[x])
}

// Cursor returns the cursor position and visibility.
func (e *FastEmulator) Cursor() Cursor {
	return Cursor{X: e.cur.x, Y: e.cur.y, Visible: e.cursorVisible, Style: e.cursorStyle}
}

// AltScreen reports whether the alternate screen is active.
func (e *FastEmulator) AltScreen() bool {
	return e.scr == e.alt
}

// Title returns the last title set with OSC 0 or OSC 2.
func (e *FastEmulator) Title() string {
	return e.title
}

// SetDefaultColors sets the pane's default colours; colours the program
// set with OSC 10 or 11 stay in force over them.
func (e *FastEmulator) SetDefaultColors(c DefaultColors) {
	e.colors.pane = c
}

// SetClipboardHandler makes fn receive the text of the program's OSC 52
// requests to set the clipboard; nil ignores them.
func (e *FastEmulator) SetClipboardHandler(fn func(text string)) {
	e.clipboard = fn
}

// SetAlertHandler makes fn hear bells and desktop notifications.
func (e *FastEmulator) SetAlertHandler(fn func(text string)) {
	e.alert = fn
}

// DefaultColors returns the default colours in force: the program's where
// it set one with OSC 10 or 11, else the pane's.
func (e *FastEmulator) DefaultColors() DefaultColors {
	return e.colors.current()
}

// Modes returns the input modes the program has enabled, with the kitty
// keyboard flags of the active screen.
func (e *FastEmulator) Modes() InputModes {
	m := e.modes
	m.KittyFlags = e.scr.keys.current()
	return m
}

// Scrollback returns the number of scrollback lines.
func (e *FastEmulator) Scrollback() int {
	return e.sb.n
}

// ScrollbackLine returns scrollback line i, 0 being the oldest, without
// trailing blanks; nil when i is out of range.
func (e *FastEmulator) ScrollbackLine(i int) []Cell {
	if i < 0 || i >= e.sb.n {
		return nil
	}
	line, _ := e.sb.line(i)
	out := make([]Cell, len(line))
	for x, c := range line {
		out[x] = e.exportCell(c)
	}
	return out
}

// promptAt reports whether a shell prompt started (OSC 133;A) on line i
// of the history: the scrollback's lines, oldest first, then the rows of
// the active screen.
func (e *FastEmulator) promptAt(i int) bool {
	switch {
	case i < 0:
		return false
	case i < e.sb.n:
		_, flags := e.sb.line(i)
		return flags&linePrompt != 0
	case i-e.sb.n < e.rows:
		return e.scr.lines[i-e.sb.n].flags&linePrompt != 0
	}
	return false
}

// fring is the scrollback: a ring of lines, oldest at start, whose
// buffers are reused once it is full, and the line flags each had on the
// screen. The flags are kept apart, one byte a line, so the headers the
// ring walks through stay 24 bytes.
type fring struct {
	lines    [][]fcell
	flags    []uint8
	start, n int
}

// push copies a row into the ring without its trailing blanks, dropping
// the oldest line when the ring is full.
func (r *fring) push(l *fline) {
	t := l.used
	for t > 0 && isBlank(l.c[t-1]) {
		t--
	}
	i := r.start
	if r.n < len(r.lines) {
		i = (r.start + r.n) % len(r.lines)
		r.n++
	} else {
		r.start = (r.start + 1) % len(r.lines)
	}
	r.lines[i] = append(r.lines[i][:0], l.c[:t]...)
	r.flags[i] = l.flags
}

// line returns line i, 0 being the oldest, and its line flags.
func (r *fring) line(i int) ([]fcell, uint8) {
	j := (r.start + i) % len(r.lines)
	return r.lines[j], r.flags[j]
}

// isBlank reports whether c shows nothing: an unstyled space outside any
// link.
func isBlank(c fcell) bool {
	return (c.r == 0 || c.r == ' ') && c.mark == [2]uint16{} && c.fg == 0 && c.bg == 0 && c.attrs == 0 && c.flags == 0 && c.link == 0
}

// notBlank reports whether c shows something.
func notBlank(c fcell) bool {
	return !isBlank(c)
}

// printable holds the printable ASCII characters, so a cell's content is
// a substring of it instead of a new string.
const printable = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

// exportCell converts a grid cell into a Cell, with the colours the
// program's palette gives it and its link's URI.
func (e *FastEmulator) exportCell(c fcell) Cell {
	out := Cell{Content: " ", Width: 1, Fg: e.pal.apply(c.fg), Bg: e.pal.apply(c.bg), Attrs: c.attrs, Link: e.links.uri(c.link)}
	switch {
	case c.flags&cellCont != 0:
		out.Content, out.Width = "", 0
	case c.r > ' ' && c.r < 0x7f && c.mark[0] == 0:
		out.Content = printable[c.r-' ' : c.r-' '+1]
	case c.r != 0:
		b := utf8.AppendRune(make([]byte, 0, 12), c.r)
		for _, m := range c.mark {
			if m != 0 {
				b = utf8.AppendRune(b, rune(m))
			}
		}
		out.Content = string(b)
	}
	if c.flags&cellWide != 0 {
		out.Width = 2
	}
	return out
}
