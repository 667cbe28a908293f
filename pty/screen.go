package pty

import (
	"strings"
	"time"
)

// Screen is a copy of the visible screen taken under the terminal lock. It
// shares nothing with the terminal, so a pane can draw it from any
// goroutine while output keeps arriving.
type Screen struct {
	// Cols and Rows are the screen size.
	Cols, Rows int
	// Cells holds Rows × Cols cells, row by row.
	Cells []Cell
	// Cursor is the cursor position and visibility.
	Cursor Cursor
	// AltScreen reports whether the alternate screen was active.
	AltScreen bool
	// Title is the window title the program last set.
	Title string
	// Colors are the default colours in force, which cells with
	// ColorDefault are drawn in.
	Colors DefaultColors
}

// Cell returns the cell at column x, row y, or BlankCell outside the
// screen.
func (sc Screen) Cell(x, y int) Cell {
	if x < 0 || y < 0 || x >= sc.Cols || y >= sc.Rows {
		return BlankCell
	}
	return sc.Cells[y*sc.Cols+x]
}

// Line returns row y's cells, or nil outside the screen.
func (sc Screen) Line(y int) []Cell {
	if y < 0 || y >= sc.Rows {
		return nil
	}
	return sc.Cells[y*sc.Cols : (y+1)*sc.Cols]
}

// Text returns the screen as plain text: one line per row with trailing
// spaces removed, and without the empty rows at the bottom.
func (sc Screen) Text() string {
	lines := make([]string, sc.Rows)
	for y := range sc.Rows {
		lines[y] = LineText(sc.Line(y))
	}
	return joinLines(lines)
}

// Snapshot returns a copy of the visible screen and cursor.
func (s *Terminal) Snapshot() Screen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot(s.emu)
}

// snapshot copies e's visible screen; the caller holds the lock.
func snapshot(e Emulator) Screen {
	cols, rows := e.Size()
	sc := Screen{
		Cols:      cols,
		Rows:      rows,
		Cells:     make([]Cell, cols*rows),
		Cursor:    e.Cursor(),
		AltScreen: e.AltScreen(),
		Title:     e.Title(),
		Colors:    e.DefaultColors(),
	}
	for y := range rows {
		for x := range cols {
			sc.Cells[y*cols+x] = e.Cell(x, y)
		}
	}
	return sc
}

// Glance returns what a look at the screen shows, read at one moment: its
// text (as Text), the title and the cursor. It copies no cells, for a
// caller that looks often (a shell pane reading an agent CLI's state).
func (s *Terminal) Glance() (text, title string, cursor Cursor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return screenText(s.emu), s.emu.Title(), s.emu.Cursor()
}

// Text returns the visible screen as plain text, trailing spaces and
// trailing empty rows removed.
func (s *Terminal) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return screenText(s.emu)
}

// screenText returns e's visible screen as plain text; the caller holds
// the lock.
func screenText(e Emulator) string {
	cols, rows := e.Size()
	lines := make([]string, rows)
	row := make([]Cell, cols)
	for y := range rows {
		for x := range cols {
			row[x] = e.Cell(x, y)
		}
		lines[y] = LineText(row)
	}
	return joinLines(lines)
}

// ScrollbackText returns the newest n scrollback lines (all of them when
// n ≤ 0) as plain text, oldest first, trailing spaces removed.
func (s *Terminal) ScrollbackText(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := s.emu.Scrollback()
	if n <= 0 || n > total {
		n = total
	}
	lines := make([]string, 0, n)
	for i := total - n; i < total; i++ {
		lines = append(lines, LineText(s.emu.ScrollbackLine(i)))
	}
	return strings.Join(lines, "\n")
}

// ScrollbackLen returns the number of lines in the scrollback.
func (s *Terminal) ScrollbackLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Scrollback()
}

// AltScreen reports whether the program has switched to the alternate
// screen.
func (s *Terminal) AltScreen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.AltScreen()
}

// Title returns the window title the program last set.
func (s *Terminal) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Title()
}

// Modes returns the input modes the program has enabled.
func (s *Terminal) Modes() InputModes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Modes()
}

// FrameInterval is the shortest time between two redraw notifications:
// Updates fires at most 60 times a second however fast output arrives.
const FrameInterval = time.Second / 60

// Updates returns a channel that receives a value when the screen may have
// changed since the last value was received. Notifications are coalesced:
// any amount of output within one frame produces a single value, and no
// two values are sent less than FrameInterval apart, except that output
// after input (a keystroke's echo) is notified at once: a flood is paced,
// typing is not. The channel is closed by Close.
func (s *Terminal) Updates() <-chan struct{} {
	return s.updates
}

// Answered reports whether the screen changed in answer to input (keys,
// a paste, a mouse report) since the last call: its notification went
// out at once, and its redraw should too.
func (s *Terminal) Answered() bool { return s.answer.Swap(false) }

// markDirty records that the screen changed without ever blocking.
func (s *Terminal) markDirty() {
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

// coalesce turns dirty marks into at most one notification per frame. A
// mark arriving during the wait for the next frame is folded into the
// pending notification, and one arriving after it schedules the next. A
// mark after input to the program (its echo) ends the wait: typing is
// never paced.
func (s *Terminal) coalesce() {
	defer s.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var last time.Time
	for {
		select {
		case <-s.dirty:
		case <-s.stop:
			return
		}
		typed := s.typed.Swap(false)
		deadline := last.Add(time.Duration(s.frame.Load()))
		for !typed && time.Now().Before(deadline) {
			timer.Reset(time.Until(deadline))
			select {
			case <-timer.C:
			case <-s.dirty:
				timer.Stop()
				typed = s.typed.Swap(false)
			case <-s.stop:
				timer.Stop()
				return
			}
		}
		select {
		case <-s.dirty:
		default:
		}
		if typed {
			s.answer.Store(true)
		}
		select {
		case s.updates <- struct{}{}:
		default:
		}
		last = time.Now()
	}
}
