package server

import (
	"io"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/kwsdev/kws/server/wire"
)

// defaultSize is a session's size before any client has attached.
var defaultSize = wire.Size{Cols: 80, Rows: 24}

// Tty is the terminal a session's screen draws on: every attached client
// at once. What the screen writes goes to each client; what any client
// types is read as the screen's input; the size is the smallest client's,
// as tmux does by default. With no client attached the session keeps
// running and its output is dropped.
type Tty struct {
	in      chan []byte
	wake    chan struct{}
	closed  chan struct{}
	once    sync.Once
	pending []byte // read by the screen's input goroutine only

	mu      sync.Mutex
	clients []*peer
	last    *peer // the client that typed last
	size    wire.Size
	resize  func()
}

// newTty returns a Tty with no client attached.
func newTty() *Tty {
	return &Tty{in: make(chan []byte, 64), wake: make(chan struct{}, 1), closed: make(chan struct{}), size: defaultSize}
}

// Start is part of tcell.Tty; the clients' terminals are in raw mode
// already.
func (t *Tty) Start() error { return nil }

// Stop is part of tcell.Tty.
func (t *Tty) Stop() error { return nil }

// Drain wakes a blocked Read, as tcell.Tty requires before Stop.
func (t *Tty) Drain() error {
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return nil
}

// NotifyResize registers the screen's resize callback.
func (t *Tty) NotifyResize(cb func()) {
	t.mu.Lock()
	t.resize = cb
	t.mu.Unlock()
}

// WindowSize is the smallest attached client's size, or the last size
// when none is attached.
func (t *Tty) WindowSize() (tcell.WindowSize, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tcell.WindowSize{Width: t.size.Cols, Height: t.size.Rows}, nil
}

// Read returns what the clients typed.
func (t *Tty) Read(p []byte) (int, error) {
	if len(t.pending) == 0 {
		select {
		case b := <-t.in:
			t.pending = b
		case <-t.wake:
			return 0, nil
		case <-t.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n, nil
}

// Write sends what the screen drew to every attached client.
func (t *Tty) Write(p []byte) (int, error) {
	t.mu.Lock()
	for _, c := range t.clients {
		c.send(wire.FrameOutput, p)
	}
	t.mu.Unlock()
	return len(p), nil
}

// Close ends the input; a blocked Read returns io.EOF.
func (t *Tty) Close() error {
	t.once.Do(func() { close(t.closed) })
	return nil
}

// input delivers what client c typed. It blocks while the screen is
// behind, which holds back that client's reader, not the server.
func (t *Tty) input(c *peer, b []byte) {
	t.mu.Lock()
	t.last = c
	t.mu.Unlock()
	select {
	case t.in <- b:
	case <-t.closed:
	}
}

// attach adds a client and resizes the screen to fit.
func (t *Tty) attach(c *peer) {
	t.mu.Lock()
	t.clients = append(t.clients, c)
	if t.last == nil {
		t.last = c
	}
	t.mu.Unlock()
	t.fit()
}

// detach removes a client; the screen keeps the last size when it was
// the only one.
func (t *Tty) detach(c *peer) {
	t.mu.Lock()
	for i, x := range t.clients {
		if x == c {
			t.clients = append(t.clients[:i], t.clients[i+1:]...)
			break
		}
	}
	if t.last == c {
		t.last = nil
		if len(t.clients) > 0 {
			t.last = t.clients[len(t.clients)-1]
		}
	}
	t.mu.Unlock()
	t.fit()
}

// setSize records a client's new terminal size.
func (t *Tty) setSize(c *peer, s wire.Size) {
	if s.Cols <= 0 || s.Rows <= 0 || s.Cols > 10000 || s.Rows > 10000 {
		return
	}
	t.mu.Lock()
	c.size = s
	t.mu.Unlock()
	t.fit()
}

// fit makes the screen the smallest client's size and tells it.
func (t *Tty) fit() {
	t.mu.Lock()
	size := t.size
	if len(t.clients) > 0 {
		size = wire.Size{}
		for _, c := range t.clients {
			s := c.size
			if s.Cols <= 0 || s.Rows <= 0 {
				continue
			}
			if size.Cols == 0 || s.Cols < size.Cols {
				size.Cols = s.Cols
			}
			if size.Rows == 0 || s.Rows < size.Rows {
				size.Rows = s.Rows
			}
		}
		if size.Cols == 0 {
			size = t.size
		}
	}
	changed := size != t.size
	t.size = size
	cb := t.resize
	t.mu.Unlock()
	if changed && cb != nil {
		cb()
	}
}

// lastClient is the client that typed last, if any is attached.
func (t *Tty) lastClient() *peer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// attachedClients is a copy of the attached clients.
func (t *Tty) attachedClients() []*peer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*peer(nil), t.clients...)
}
