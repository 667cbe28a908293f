package server

import (
	"strconv"
	"strings"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
	"github.com/kwsdev/kws/server/wire"
)

// maxStyles bounds the repaint's cache of encoded styles: a pane's
// program may draw a gradient of thousands of colours.
const maxStyles = 4096

// screen is a session's screen: tcell's, drawing on the session's Tty for
// every attached client, with a repaint of every cell for one client
// alone, the one that just attached or caught up after its output was
// dropped.
//
// tcell can repaint only every client at once (its Sync), and slowly for
// the moment a user waits on: it encodes each cell afresh, with
// allocations, which costs milliseconds for a full screen. The repaint
// here encodes each distinct style once, from the terminal's description
// as tcell does, and the cells' text as they are. It is done for UTF-8
// terminals with colour, when no hyperlink is on the screen; anything
// else takes tcell's Sync.
type screen struct {
	tcell.Screen
	ti  *terminfo.Terminfo
	tty *Tty
	// cells is tcell's own cell buffer, under its lock: the repaint reads
	// the whole screen in one hold of it. Nil when the screen does not
	// offer it.
	cells cellBuffer

	// mu orders what reaches the clients: the screen's frames and a
	// repaint are written whole, one after the other. Within it: the
	// fields below.
	mu sync.Mutex
	// shown is set once the session showed its first frame: before it,
	// tcell may be starting and that frame paints every cell anyway.
	shown   bool
	style   tcell.Style // the default style (SetStyle)
	sgr     map[tcell.Style]string
	palette []tcell.Color
	rows    []string // the cursor moves to each row's first cell
	buf     []byte
}

// cellBuffer is what tcell's screens offer their common code: the lock
// of the cells and the cells.
type cellBuffer interface {
	sync.Locker
	GetCells() *tcell.CellBuffer
}

// underlines are the sequences of the underline styles beyond the plain
// one.
var underlines = map[tcell.UnderlineStyle]string{
	tcell.UnderlineStyleDouble: "\x1b[4:2m",
	tcell.UnderlineStyleCurly:  "\x1b[4:3m",
	tcell.UnderlineStyleDotted: "\x1b[4:4m",
	tcell.UnderlineStyleDashed: "\x1b[4:5m",
}

// newScreen returns the screen of a session drawing on tty for terminals
// described by ti. The screen has its own copy of ti: tcell amends the
// description it is given.
func newScreen(tty *Tty, desc *terminfo.Terminfo) (*screen, error) {
	ti := new(terminfo.Terminfo)
	*ti = *desc
	s, err := tcell.NewTerminfoScreenFromTtyTerminfo(tty, ti)
	if err != nil {
		return nil, err
	}
	cells, _ := s.(cellBuffer)
	return &screen{Screen: s, ti: ti, tty: tty, cells: cells}, nil
}

// Show is tcell's, ordered with repaints.
func (s *screen) Show() {
	s.mu.Lock()
	s.Screen.Show()
	s.shown = true
	s.mu.Unlock()
}

// Sync is tcell's, ordered with repaints.
func (s *screen) Sync() {
	s.mu.Lock()
	s.Screen.Sync()
	s.shown = true
	s.mu.Unlock()
}

// SetStyle is tcell's; the repaint draws unstyled cells in it too.
func (s *screen) SetStyle(style tcell.Style) {
	s.mu.Lock()
	s.style = style
	s.mu.Unlock()
	s.Screen.SetStyle(style)
}

// repaint paints every cell on client c's terminal, then shows the cursor
// on every client's (with what the screen holds that it has not shown
// yet, when a frame is being drawn).
func (s *screen) repaint(c *peer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.shown {
		return
	}
	if !s.encode() {
		s.Screen.Sync()
		return
	}
	c.send(wire.FrameOutput, s.buf)
	s.Screen.Show()
}

// encode encodes every cell into s.buf, between synchronized-output marks
// and with the cursor hidden, and reports whether it could: false sends
// the repaint to tcell's Sync. Call with s.mu held.
func (s *screen) encode() bool {
	ti := s.ti
	if cs := strings.ToLower(s.CharacterSet()); cs != "utf-8" && cs != "utf8" {
		return false
	}
	// tcell draws the last cell of terminals that wrap and cannot stop it
	// with an insertion, which is not copied here.
	if s.cells == nil || (ti.AutoMargin && ti.DisableAutoMargin == "" && ti.InsertChar != "") {
		return false
	}
	colors := s.Colors()
	if colors == 0 || ti.Colors > 256 {
		return false // monochrome has tcell reverse colours; direct colour is ambiguous
	}
	w, h := s.Size()
	if ws, err := s.tty.WindowSize(); err != nil || ws.Width != w || ws.Height != h {
		return false // a resize is on its way; Sync takes it
	}
	if len(s.rows) != h {
		s.rows = make([]string, h)
		for y := range h {
			s.rows[y] = ti.TGoto(0, y)
		}
	}
	if s.sgr == nil || len(s.sgr) > maxStyles {
		s.sgr = make(map[tcell.Style]string)
	}
	// tcell marks its frames for synchronized output on xterm-like
	// terminals.
	syncOn, syncOff := "", ""
	if ti.XTermLike {
		syncOn, syncOff = "\x1b[?2026h", "\x1b[?2026l"
	}
	b := append(s.buf[:0], syncOn...)
	b = append(b, ti.HideCursor...)
	b, ok := s.encodeCells(b, w, h, colors == 1<<24)
	if !ok {
		return false
	}
	s.buf = append(b, syncOff...)
	return true
}

// encodeCells appends every cell of the w×h screen to b and reports
// whether it could: the cells' styles are all known to it. It reads the
// cells under tcell's lock.
func (s *screen) encodeCells(b []byte, w, h int, truecolor bool) ([]byte, bool) {
	s.cells.Lock()
	defer s.cells.Unlock()
	cells := s.cells.GetCells()
	cur, started := tcell.StyleDefault, false
	for y := range h {
		b = append(b, s.rows[y]...)
		for x := 0; x < w; {
			str, style, width := cells.Get(x, y)
			if style == tcell.StyleDefault {
				style = s.style
			}
			if !started || style != cur {
				sgr, ok := s.sgr[style]
				if !ok {
					if style.Url("") != style {
						return b, false // tcell keeps a link's target to itself
					}
					sgr = s.encodeStyle(style, truecolor)
					s.sgr[style] = sgr
				}
				b = append(b, sgr...)
				cur, started = style, true
			}
			width = max(width, 1)
			if x > w-width {
				str, width = " ", 1 // a wide character in the last column
			}
			b = append(b, str...)
			x += width
		}
	}
	return b, true
}

// encodeStyle is what tcell sends to draw in style: every attribute off,
// then the colours and attributes of style (see tcell's drawCell).
func (s *screen) encodeStyle(style tcell.Style, truecolor bool) string {
	ti := s.ti
	var b strings.Builder
	puts := func(seq string) { ti.TPuts(&b, seq) }
	fg, bg, attrs := style.Decompose()
	puts(ti.AttrOff)
	if fg == tcell.ColorReset || bg == tcell.ColorReset {
		puts(ti.ResetFgBg)
	}
	rgbDone := false
	if truecolor {
		if ti.SetFgBgRGB != "" && fg.IsRGB() && bg.IsRGB() {
			r1, g1, b1 := fg.RGB()
			r2, g2, b2 := bg.RGB()
			puts(ti.TParm(ti.SetFgBgRGB, int(r1), int(g1), int(b1), int(r2), int(g2), int(b2)))
			rgbDone = true
		} else {
			if fg.IsRGB() && ti.SetFgRGB != "" {
				r, g, b := fg.RGB()
				puts(ti.TParm(ti.SetFgRGB, int(r), int(g), int(b)))
				fg = tcell.ColorDefault
			}
			if bg.IsRGB() && ti.SetBgRGB != "" {
				r, g, b := bg.RGB()
				puts(ti.TParm(ti.SetBgRGB, int(r), int(g), int(b)))
				bg = tcell.ColorDefault
			}
		}
	}
	if !rgbDone {
		fg, bg = s.fit(fg), s.fit(bg)
		switch {
		case fg.Valid() && bg.Valid() && ti.SetFgBg != "":
			puts(ti.TParm(ti.SetFgBg, int(fg&0xff), int(bg&0xff)))
		default:
			if fg.Valid() && ti.SetFg != "" {
				puts(ti.TParm(ti.SetFg, int(fg&0xff)))
			}
			if bg.Valid() && ti.SetBg != "" {
				puts(ti.TParm(ti.SetBg, int(bg&0xff)))
			}
		}
	}
	if attrs&tcell.AttrBold != 0 {
		puts(ti.Bold)
	}
	if us := style.GetUnderlineStyle(); us != tcell.UnderlineStyleNone {
		// Colours and styles of underlines go to xterm-like terminals,
		// in the sequences tcell uses.
		if ti.XTermLike {
			switch uc := style.GetUnderlineColor(); {
			case uc == tcell.ColorReset:
				puts("\x1b[59m")
			case uc.IsRGB():
				r, g, bl := uc.RGB()
				puts("\x1b[58:2::" + strconv.Itoa(int(r)) + ":" + strconv.Itoa(int(g)) + ":" + strconv.Itoa(int(bl)) + "m")
			case uc.Valid():
				puts("\x1b[58:5:" + strconv.Itoa(int(uc&0xff)) + "m")
			}
		}
		puts(ti.Underline)
		if seq, ok := underlines[us]; ok && ti.XTermLike {
			puts(seq)
		}
	}
	for _, a := range []struct {
		bit tcell.AttrMask
		seq string
	}{{tcell.AttrReverse, ti.Reverse}, {tcell.AttrBlink, ti.Blink}, {tcell.AttrDim, ti.Dim}, {tcell.AttrItalic, ti.Italic}, {tcell.AttrStrikeThrough, ti.StrikeThrough}} {
		if attrs&a.bit != 0 {
			puts(a.seq)
		}
	}
	return b.String()
}

// fit is colour c as the terminal's palette has it: a palette colour as
// it is, any other the nearest palette colour, as tcell picks it.
func (s *screen) fit(c tcell.Color) tcell.Color {
	if !c.Valid() {
		return c
	}
	if len(s.palette) == 0 {
		n := min(s.ti.Colors, 256)
		s.palette = make([]tcell.Color, n)
		for i := range n {
			s.palette[i] = tcell.Color(i) | tcell.ColorValid
		}
	}
	if !c.IsRGB() && c&tcell.ColorSpecial == 0 && int(c&0xff) < len(s.palette) && c == tcell.Color(c&0xff)|tcell.ColorValid {
		return c
	}
	return tcell.FindColor(c, s.palette)
}
