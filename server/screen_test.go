package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/server/wire"
)

// terminals are the descriptions the repaint is checked for: xterm's with
// 256 colours and with 24-bit colour, tmux's (which wraps at the last
// column) and screen's (8 colours, not like xterm).
func terminals(t testing.TB) map[string]*terminfo.Terminfo {
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_CTYPE", "")
	t.Setenv("NO_COLOR", "")
	t.Setenv("TCELL_TRUECOLOR", "")
	t.Setenv("COLORTERM", "")
	return map[string]*terminfo.Terminfo{
		"256 colours": description(t, "xterm-256color", func(ti *terminfo.Terminfo) {
			ti.SetFgRGB, ti.SetBgRGB, ti.SetFgBgRGB = "", "", ""
		}),
		"24-bit colour": description(t, "xterm-256color", func(ti *terminfo.Terminfo) {
			ti.SetFgRGB = "\x1b[38;2;%p1%d;%p2%d;%p3%dm"
			ti.SetBgRGB = "\x1b[48;2;%p1%d;%p2%d;%p3%dm"
			ti.SetFgBgRGB = "\x1b[38;2;%p1%d;%p2%d;%p3%d;48;2;%p4%d;%p5%d;%p6%dm"
		}),
		"tmux":   description(t, "tmux-256color", nil),
		"screen": description(t, "screen", nil),
	}
}

// description is a copy of the terminal description called name, changed
// by mod: tcell's lookup changes the entries of its database in place.
func description(t testing.TB, name string, mod func(*terminfo.Terminfo)) *terminfo.Terminfo {
	ti, err := tcell.LookupTerminfo(name)
	if err != nil {
		t.Fatal(err)
	}
	c := *ti
	if mod != nil {
		mod(&c)
	}
	return &c
}

// startScreen starts a cols×rows session screen for terminals described
// by ti, on a Tty of its own; the test ends it.
func startScreen(tb testing.TB, ti *terminfo.Terminfo, cols, rows int) (*screen, *Tty) {
	tb.Helper()
	tty := newTty()
	tty.size = wire.Size{Cols: cols, Rows: rows}
	s, err := newScreen(tty, ti)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Init(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Fini)
	return s, tty
}

// testClient is a client's end of a connection to a screen's Tty: it
// reads the output frames, which come in batches closed by a marker
// frame.
type testClient struct {
	t       *testing.T
	p       *peer
	batches chan []byte
}

// marker closes a batch of output frames.
const marker = wire.FrameAttached

// attachClient attaches a client of size cols×rows to tty.
func attachClient(t *testing.T, tty *Tty, cols, rows int) *testClient {
	a, b := net.Pipe()
	p := newPeer(a)
	p.size = wire.Size{Cols: cols, Rows: rows}
	c := &testClient{t: t, p: p, batches: make(chan []byte, 16)}
	t.Cleanup(func() {
		tty.detach(p)
		p.close()
		b.Close()
		<-p.done
	})
	go func() {
		var out bytes.Buffer
		for {
			typ, payload, err := wire.ReadFrame(b)
			if err != nil {
				return
			}
			switch typ {
			case wire.FrameOutput:
				out.Write(payload)
			case marker:
				c.batches <- bytes.Clone(out.Bytes())
				out.Reset()
			}
		}
	}()
	tty.attach(p)
	return c
}

// batch returns the output the client read since the last batch, once
// everything queued for it before this call has come.
func (c *testClient) batch() []byte {
	c.t.Helper()
	c.p.send(marker, nil)
	select {
	case b := <-c.batches:
		return b
	case <-time.After(waitLimit):
		c.t.Fatal("the client's output never came")
	}
	return nil
}

// shows is what a terminal of cols×rows shows after the attach
// sequences of ti and then out.
func shows(ti *terminfo.Terminfo, cols, rows int, out []byte) (cells []pty.Cell, cur pty.Cursor) {
	e := pty.NewFastEmulator(cols, rows, 0)
	defer e.Close()
	go func() { _, _ = io.Copy(io.Discard, e) }()
	_, _ = e.Write([]byte(lookupTermInfo(ti.Name).enter))
	_, _ = e.Write(out)
	for y := range rows {
		for x := range cols {
			cells = append(cells, e.Cell(x, y))
		}
	}
	return cells, e.Cursor()
}

// drawSample fills a w×h screen (at least 40×8) with what sessions show:
// every attribute, palette, RGB and reset colours, underline styles and
// colours, wide and combining characters, a wide character in the last
// column and the last cell, and places a bar cursor.
func drawSample(s tcell.Screen, w, h int) {
	put := func(x, y int, text string, st tcell.Style) int {
		for _, r := range text {
			s.SetContent(x, y, r, nil, st)
			if r >= 0x1100 {
				x++
			}
			x++
		}
		return x
	}
	def := tcell.StyleDefault
	x := put(0, 0, "plain ", def)
	x = put(x, 0, "bold ", def.Bold(true))
	x = put(x, 0, "dim-it ", def.Dim(true).Italic(true))
	x = put(x, 0, "rev ", def.Reverse(true))
	x = put(x, 0, "blink ", def.Blink(true))
	put(x, 0, "strike", def.StrikeThrough(true))
	for i := range 16 {
		put(i*2, 1, "p", def.Foreground(tcell.PaletteColor(i)).Background(tcell.PaletteColor(15-i)))
		put(i*2+1, 1, "q", def.Foreground(tcell.PaletteColor(100+i*9)))
	}
	put(33, 1, "reset", def.Foreground(tcell.ColorReset).Background(tcell.PaletteColor(4)))
	x = put(0, 2, "rgb ", def.Foreground(tcell.NewRGBColor(250, 128, 3)).Background(tcell.NewRGBColor(10, 20, 30)))
	x = put(x, 2, "fg ", def.Foreground(tcell.NewRGBColor(1, 200, 90)))
	x = put(x, 2, "bg ", def.Background(tcell.NewRGBColor(200, 1, 90)).Bold(true))
	x = put(x, 2, "named ", def.Foreground(tcell.ColorAliceBlue).Background(tcell.ColorDarkOliveGreen))
	put(x, 2, "mixed", def.Foreground(tcell.PaletteColor(200)).Background(tcell.NewRGBColor(4, 5, 6)))
	x = put(0, 3, "solid ", def.Underline(true))
	x = put(x, 3, "double ", def.Underline(tcell.UnderlineStyleDouble))
	x = put(x, 3, "curly ", def.Underline(tcell.UnderlineStyleCurly, tcell.NewRGBColor(255, 0, 0)))
	x = put(x, 3, "dotted ", def.Underline(tcell.UnderlineStyleDotted, tcell.PaletteColor(33)))
	put(x, 3, "dashed", def.Underline(tcell.UnderlineStyleDashed, tcell.ColorReset))
	x = put(0, 4, "日本語 ", def)
	s.SetContent(x, 4, 'e', []rune{'\u0301'}, def.Bold(true))
	put(w-1, 5, "語", def)
	put(w-3, 6, "end", def.Foreground(tcell.PaletteColor(2)))
	put(w-1, h-1, "Z", def.Bold(true).Background(tcell.NewRGBColor(9, 9, 9)))
	s.SetCursorStyle(tcell.CursorStyleSteadyBar, tcell.ColorReset)
	s.ShowCursor(5, 3)
}

// TestRepaintShowsWhatSyncShows draws a screen full of what sessions show
// and checks, for each of the terminals, that a
// client the server repaints shows what tcell's own full repaint shows,
// cell by cell with colours and attributes, and the cursor; that the
// cells went to that client alone, while another attached client got only
// the cursor.
func TestRepaintShowsWhatSyncShows(t *testing.T) {
	const cols, rows = 40, 8
	for name, ti := range terminals(t) {
		t.Run(name, func(t *testing.T) {
			s, tty := startScreen(t, ti, cols, rows)
			first, other := attachClient(t, tty, cols, rows), attachClient(t, tty, cols, rows)
			drawSample(s, cols, rows)
			s.Show()
			first.batch()
			other.batch()

			s.repaint(first.p)
			repainted, cursorOnly := first.batch(), other.batch()
			if bytes.Contains(cursorOnly, []byte("plain")) || !bytes.Contains(repainted, []byte("plain")) {
				t.Fatalf("the repaint was not for the first client alone: it got %q, the other %q", repainted, cursorOnly)
			}
			s.Sync()
			synced := first.batch()

			got, gotCur := shows(ti, cols, rows, repainted)
			want, wantCur := shows(ti, cols, rows, synced)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("cell %d,%d repainted is %+v; tcell shows %+v", i%cols, i/cols, got[i], want[i])
				}
			}
			if gotCur != wantCur || !gotCur.Visible || gotCur.X != 5 || gotCur.Y != 3 || gotCur.Style != 6 {
				t.Errorf("cursor repainted %+v; tcell shows %+v (want a bar at 5,3)", gotCur, wantCur)
			}
			if c := got[2*cols]; c.Content != "r" || c.Fg == pty.ColorDefault || c.Bg == pty.ColorDefault {
				t.Errorf("an RGB cell repainted shows %+v", c)
			}
		})
	}
}

// TestRepaintFallsBack checks the repaint's ways out: a screen that shows
// a hyperlink, whose target only tcell knows, is repainted by tcell's
// Sync for every client, and the link's target is in the output; so is a
// screen on a terminal that wraps at the last column and can insert.
func TestRepaintFallsBack(t *testing.T) {
	ti := terminals(t)["256 colours"]
	t.Run("a hyperlink", func(t *testing.T) {
		checkFallsBack(t, ti, tcell.StyleDefault.Url("https://example.com/docs"), "https://example.com/docs")
	})
	inserts := description(t, "xterm-256color", func(ti *terminfo.Terminfo) { ti.DisableAutoMargin, ti.InsertChar = "", "\x1b[@" })
	t.Run("inserting at the last cell", func(t *testing.T) { checkFallsBack(t, inserts, tcell.StyleDefault, "\x1b[@") })
}

// checkFallsBack checks that a 20×3 screen on ti showing "docs" in style
// and "Z" in the last cell is
// repainted by tcell's Sync, whose output holds want.
func checkFallsBack(t *testing.T, ti *terminfo.Terminfo, style tcell.Style, want string) {
	s, tty := startScreen(t, ti, 20, 3)
	first, other := attachClient(t, tty, 20, 3), attachClient(t, tty, 20, 3)
	for i, r := range "docs" {
		s.SetContent(i, 1, r, nil, style)
	}
	s.SetContent(19, 2, 'Z', nil, tcell.StyleDefault)
	s.Show()
	first.batch()
	other.batch()
	s.repaint(first.p)
	for _, c := range []*testClient{first, other} {
		if out := c.batch(); !bytes.Contains(out, []byte(want)) || !bytes.Contains(out, []byte("docs")) {
			t.Fatalf("a client got %q from the repaint", out)
		}
	}
}

// TestRepaintBeforeTheFirstFrame attaches a client to a screen that has
// not started: the repaint sends nothing (the first frame paints every
// cell) and does not touch tcell before its Init.
func TestRepaintBeforeTheFirstFrame(t *testing.T) {
	ti := terminals(t)["256 colours"]
	tty := newTty()
	s, err := newScreen(tty, ti)
	if err != nil {
		t.Fatal(err)
	}
	c := attachClient(t, tty, 80, 24)
	s.repaint(c.p)
	if out := c.batch(); len(out) != 0 {
		t.Fatalf("a repaint before the first frame sent %q", out)
	}
}

// TestRepaintWhileDrawing repaints a client over and over while another
// goroutine draws frame after frame, as a session does while clients
// attach: under the race detector this checks the repaint reads the
// screen only through tcell's lock, and the client ends up showing the
// last frame, as a client attached all along does.
func TestRepaintWhileDrawing(t *testing.T) {
	const cols, rows = 30, 6
	ti := terminals(t)["24-bit colour"]
	s, tty := startScreen(t, ti, cols, rows)
	along := attachClient(t, tty, cols, rows)
	s.Show()
	var seen, fresh bytes.Buffer
	seen.Write(along.batch())
	late := attachClient(t, tty, cols, rows)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 300 {
			line := fmt.Sprintf("frame %d", i)
			for y := range rows {
				for x := range cols {
					r := ' '
					if x < len(line) {
						r = rune(line[x])
					}
					s.SetContent(x, y, r, nil, tcell.StyleDefault.Foreground(tcell.NewRGBColor(int32(i), int32(y), 7)))
				}
			}
			s.Show()
		}
	}()
	for range 100 {
		s.repaint(late.p)
	}
	<-done
	seen.Write(along.batch())
	fresh.Write(late.batch())
	want, wantCur := shows(ti, cols, rows, seen.Bytes())
	got, gotCur := shows(ti, cols, rows, fresh.Bytes())
	if !strings.Contains(want[0].Content+want[1].Content, "fr") {
		t.Fatalf("the client attached all along shows %+v", want[:2])
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cell %d,%d on the repainted client is %+v; the other shows %+v", i%cols, i/cols, got[i], want[i])
		}
	}
	if gotCur != wantCur {
		t.Fatalf("cursor %+v on the repainted client, %+v on the other", gotCur, wantCur)
	}
}

// BenchmarkRepaint measures the server's repaint of a full 160×48 screen
// beside tcell's Sync of it, the way it went before.
func BenchmarkRepaint(b *testing.B) {
	const cols, rows = 160, 48
	ti := terminals(b)["24-bit colour"]
	s, _ := startScreen(b, ti, cols, rows)
	for y := range rows {
		for x := range cols {
			st := tcell.StyleDefault.Foreground(tcell.NewRGBColor(int32(200-x/8), 180, int32(y*4))).Background(tcell.NewRGBColor(20, 20, int32(20+x/40)))
			s.SetContent(x, y, rune('a'+(x*7+y)%26), nil, st)
		}
	}
	drawSample(s, cols, rows)
	s.Show()
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			s.mu.Lock()
			if !s.encode() {
				b.Fatal("the screen could not be encoded")
			}
			s.mu.Unlock()
		}
		b.ReportMetric(float64(len(s.buf)), "bytes")
	})
	b.Run("tcell-sync", func(b *testing.B) {
		for b.Loop() {
			s.Sync()
		}
	})
}
