package server

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/kwsdev/kws/server/wire"
	"golang.org/x/sys/unix"
)

// ttyOf is the named session's terminal.
func (h *harness) ttyOf(name string) *Tty {
	h.d.mu.Lock()
	defer h.d.mu.Unlock()
	s := h.d.sessions[name]
	if s == nil {
		h.t.Fatalf("no session %s", name)
	}
	return s.tty
}

// checkSize checks the session's terminal and screen are want.
func (h *harness) checkSize(f *fakeSession, name string, want wire.Size) {
	h.t.Helper()
	ws, _ := h.ttyOf(name).WindowSize()
	w, r := f.spec.Screen.Size()
	if ws.Width != want.Cols || ws.Height != want.Rows || w != want.Cols || r != want.Rows {
		h.t.Fatalf("tty %dx%d, screen %dx%d, want %+v", ws.Width, ws.Height, w, r, want)
	}
}

// after is what follows the first mark in out, through the first end
// after it.
func after(t *testing.T, out []byte, mark, end string) []byte {
	t.Helper()
	i := bytes.Index(out, []byte(mark))
	j := bytes.Index(out[i:], []byte(end))
	if i < 0 || j < 0 {
		t.Fatalf("no %q then %q in %q", mark, end, out)
	}
	return out[i : i+j+len(end)]
}

// TestTwoClientsShareASession attaches two clients to one session: both
// see the same output, either one types, the screen is the smaller one's
// size, Detach ends the client that typed last, End ends the other, and
// the server stops with its last session.
func TestTwoClientsShareASession(t *testing.T) {
	h := newHarness(t, nil)
	a, at := h.attach(wire.Hello{Mode: "default", Workspace: "/w/proj", Size: wire.Size{Cols: 100, Rows: 40}})
	f := h.session()
	if at.Session != "proj" || f.spec.Name != "proj" || f.spec.Workspace != "/w/proj" || at.Enter == "" || at.Leave == "" {
		t.Fatalf("attached %+v to session %q of %q", at, f.spec.Name, f.spec.Workspace)
	}
	<-f.attached
	b, bt := h.attach(wire.Hello{Mode: "attach", Session: "proj", Size: wire.Size{Cols: 90, Rows: 30}})
	if bt.Session != "proj" {
		t.Fatalf("second client attached to %q", bt.Session)
	}
	<-f.attached
	f.waitSize(t, wire.Size{Cols: 90, Rows: 30})
	h.checkSize(f, "proj", wire.Size{Cols: 90, Rows: 30})

	for _, k := range []struct {
		who *client
		key string
	}{{a, "s"}, {a, "x"}, {b, "y"}} {
		k.who.typeKeys(k.key)
		f.waitKey(t, rune(k.key[0]))
		a.waitOutput("<" + k.key + ">")
		b.waitOutput("<" + k.key + ">")
	}
	if sa, sb := after(t, a.out.Bytes(), "<s>", "<y>"), after(t, b.out.Bytes(), "<s>", "<y>"); !bytes.Equal(sa, sb) {
		t.Fatalf("the clients saw different output:\n%q\n%q", sa, sb)
	}

	if err := wire.WriteJSON(b.c, wire.FrameSize, wire.Size{Cols: 120, Rows: 50}); err != nil {
		t.Fatal(err)
	}
	f.waitSize(t, wire.Size{Cols: 100, Rows: 40})
	h.checkSize(f, "proj", wire.Size{Cols: 100, Rows: 40})

	f.spec.Detach() // b typed last
	if e := b.waitExit(); e != (wire.Exit{Message: "[detached (from session proj)]"}) {
		t.Fatalf("the detached client got %+v", e)
	}
	a.typeKeys("c")
	a.waitOutput("<c>")
	if list := h.ls(); len(list) != 1 || list[0].Clients != 1 {
		t.Fatalf("ls after a detach: %+v", list)
	}

	f.End()
	if e := a.waitExit(); e != (wire.Exit{Message: "[exited (from session proj)]"}) {
		t.Fatalf("the remaining client got %+v", e)
	}
	h.waitServed()
}

// ptyReader collects what a pty's master side reads.
type ptyReader struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
}

func readPty(f *os.File) *ptyReader {
	r := &ptyReader{more: make(chan struct{}, 1)}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			r.mu.Lock()
			r.buf.Write(b[:n])
			r.mu.Unlock()
			select {
			case r.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

// wait waits until what was read holds want.
func (r *ptyReader) wait(t *testing.T, want string) {
	t.Helper()
	for {
		r.mu.Lock()
		ok := strings.Contains(r.buf.String(), want)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.more:
		case <-time.After(waitLimit):
			t.Fatalf("the terminal never showed %q", want)
		}
	}
}

// TestAttachOverAPty runs the thin client on a real terminal: raw mode,
// the terminal's size, keys in, screen out, and the terminal restored
// after a detach.
func TestAttachOverAPty(t *testing.T) {
	h := newHarness(t, nil)
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer pts.Close()
	defer ptm.Close()
	if err := pty.Setsize(pts, &pty.Winsize{Rows: 20, Cols: 70}); err != nil {
		t.Fatal(err)
	}
	before, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	screen := readPty(ptm)
	c, err := wire.Dial(h.sock)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		e   wire.Exit
		err error
	}
	done := make(chan result, 1)
	go func() {
		e, err := wire.Attach(c, wire.Hello{Mode: "new", Session: "tty", Workspace: "/w/t"}, pts, pts)
		done <- result{e, err}
	}()
	f := h.session()
	<-f.attached
	f.waitSize(t, wire.Size{Cols: 70, Rows: 20})
	h.checkSize(f, "tty", wire.Size{Cols: 70, Rows: 20})
	screen.wait(t, "\x1b[?2004h") // the client's enter sequence
	if _, err := ptm.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	f.waitKey(t, 'k')
	screen.wait(t, "<k>")
	f.spec.Detach()
	select {
	case r := <-done:
		if r.err != nil || r.e != (wire.Exit{Message: "[detached (from session tty)]"}) {
			t.Fatalf("Attach returned %+v %v", r.e, r.err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Attach did not return after the detach")
	}
	screen.wait(t, "\x1b[?2004l") // the client's leave sequence
	now, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil || now.Lflag != before.Lflag || now.Iflag != before.Iflag || now.Oflag != before.Oflag {
		t.Fatalf("the terminal was not restored: %+v, was %+v (%v)", now, before, err)
	}
	if list := h.ls(); len(list) != 1 || list[0].Clients != 0 {
		t.Fatalf("ls after the detach: %+v", list)
	}
}
