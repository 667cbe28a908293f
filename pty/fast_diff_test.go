package pty

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// diffStream is output of a realistic program, in the chunks a pty might
// deliver it; the emulators are compared after every chunk.
type diffStream struct {
	name       string
	cols, rows int
	chunks     []string
	// scrollback says whether the scrollback must match too.
	scrollback bool
	// titleStack is set when the program restores its title with
	// XTWINOPS 23, which x/vt ignores, so the titles are not compared.
	titleStack bool
}

// bashPrompt is a coloured bash prompt that also sets the title.
const bashPrompt = "\x1b]0;user@host: ~/src\x07\x1b[01;32muser@host\x1b[00m:\x1b[01;34m~/src\x1b[00m$ "

// diffStreams returns the differential test's streams: a bash session
// with readline editing, ls --color, vim, less, an htop-like full redraw,
// a progress bar, a line-drawing dialog and long wrapped output.
func diffStreams() []diffStream {
	var ls strings.Builder
	for i := range 40 {
		fmt.Fprintf(&ls, "\x1b[0m\x1b[01;34mdir%02d\x1b[0m  \x1b[01;32mrun.sh\x1b[0m  file%d.txt  \x1b[01;36mlink\x1b[0m  日本語%d.md\r\n", i, i, i)
	}

	vim := []string{"\x1b[?1049h\x1b[22;0;0t\x1b[>4;2m\x1b[?1h\x1b=\x1b[H\x1b[2J\x1b]2;note.txt - VIM\x07\x1b[?25l"}
	var b strings.Builder
	for y := 1; y <= 22; y++ {
		if y <= 12 {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[33m%3d \x1b[mline %d of the file\x1b[K", y, y, y)
		} else {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[94m~\x1b[0m\x1b[K", y)
		}
	}
	b.WriteString("\x1b[23;1H\x1b[7mnote.txt [+]                                  12,1        All\x1b[27m")
	b.WriteString("\x1b[24;1H\"note.txt\" 12L, 240B\x1b[1;5H\x1b[?25h")
	vim = append(vim, b.String(),
		"\x1b[?25l\x1b[1;22r\x1b[22;1H\n\x1b[r\x1b[22;1H\x1b[33m 13 \x1b[mscrolled in\x1b[K\x1b[22;5H\x1b[?25h",
		"\x1b[?25l\x1b[1;22r\x1b[1;1H\x1bM\x1b[r\x1b[1;1H\x1b[33m  0 \x1b[mscrolled back\x1b[K\x1b[1;5H\x1b[?25h",
		"\x1b[5;5H\x1b[1P\x1b[4h\x1b[1mX\x1b[m\x1b[4l\x1b[3;1H\x1b[2L\x1b[3;1Hnew\x1b[7;1H\x1b[M",
		"\x1b[24;1H\x1b[K:q!\r\x1b[?1l\x1b>\x1b[>4;m\x1b[23;0;0t\x1b[?1049l")

	var lessPage strings.Builder
	for i := 1; i <= 23; i++ {
		fmt.Fprintf(&lessPage, "\x1b[1m%d\x1b[m: \x1b[32mpackage\x1b[m pty // %s\r\n", i, strings.Repeat("x", i))
	}
	less := []string{
		"\x1b[?1049h\x1b[22;0;0t\x1b[?1h\x1b=\r" + lessPage.String() + "\x1b[7m(END)\x1b[27m\x1b[K",
		"\r\x1b[K24: one more line\r\n\x1b[7m(END)\x1b[27m\x1b[K",
		"\x1b[H\x1bM0: back up\x1b[24;1H\r\x1b[K:",
		"\r\x1b[K\x1b[?1l\x1b>\x1b[?1049l\x1b[23;0;0t",
	}

	var top strings.Builder
	top.WriteString("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J")
	for frame := range 3 {
		for y := 1; y <= 30; y++ {
			fmt.Fprintf(&top, "\x1b[%d;1H", y)
			switch {
			case y <= 4:
				fmt.Fprintf(&top, "  \x1b[1m%d\x1b[m[\x1b[32m%s\x1b[31m%s\x1b[38;5;240m%s\x1b[m%3d%%]", y, strings.Repeat("|", 10+frame), strings.Repeat("|", y), strings.Repeat(" ", 20-y-frame), 30+y)
			case y == 6:
				fmt.Fprintf(&top, "\x1b[30;42m  PID USER      CPU%%  MEM%%  Command%s", strings.Repeat(" ", 60))
			default:
				fmt.Fprintf(&top, "\x1b[48;2;%d;%d;%dm\x1b[38;2;250;250;%dm%5d user %5.1f %5.1f  /usr/bin/proc-%d --flag\x1b[K\x1b[m", y*3, frame*40, 20, y*5, 1000+y, float64(y)/3, float64(frame)/7, y)
			}
		}
		top.WriteString("\x1b[30;1H\x1b[m F1\x1b[30;46mHelp  \x1b[m F10\x1b[30;46mQuit\x1b[K\x1b[m")
	}
	topChunks := []string{top.String(), "\x1b[?25h\x1b[?1049l"}

	var progress []string
	for k := 0; k <= 20; k += 4 {
		progress = append(progress, fmt.Sprintf("\rDownloading [%s>%s] %3d%%", strings.Repeat("=", k), strings.Repeat(" ", 20-k), k*5))
	}
	progress = append(progress, "\r\n\x1b[32mdone\x1b[0m\r\n"+bashPrompt)

	dialog := []string{
		"\x1b[H\x1b[2J\x1b[3;5H\x1b(0lqqqqqqqqqqk\x1b(B\x1b[4;5H\x1b(0x\x1b(B Continue \x1b(0x\x1b(B",
		"\x1b[5;5H\x1b(0tqqqqqqqqqqu\x1b(B\x1b[6;5H\x1b(0x\x1b(B\x1b[7m  <Yes>   \x1b[m\x1b(0x\x1b(B\x1b[7;5H\x1b(0mqqqqqqqqqqj\x1b(B",
	}

	var long strings.Builder
	for i := range 30 {
		fmt.Fprintf(&long, "\x1b[3%dm%s\x1b[m %d\r\n", i%8, strings.Repeat("word ", 25), i)
	}

	return []diffStream{
		{"bash prompt and readline", 80, 24, []string{
			bashPrompt, "ls -la", "\r\n", "total 12\r\n-rw-r--r-- 1 user user 4096 Jan  1 00:00 \x1b[01;32mrun.sh\x1b[0m\r\n" + bashPrompt,
			"echo hello", "\b\b\b\b\b\x1b[1P\x1b[1P", "\x1b[C\x1b[C\x1b[2@xy", "\r\n", "hlxylo\r\n" + bashPrompt,
			"long command " + strings.Repeat("arg ", 20), "\r\x1b[K" + bashPrompt, "\x07",
		}, true, false},
		{"ls --color", 80, 24, []string{bashPrompt + "ls --color\r\n", ls.String(), bashPrompt}, true, false},
		{"vim", 80, 24, append([]string{"$ vim note.txt\r\n"}, vim...), false, true},
		{"less", 80, 24, append([]string{"$ git log\r\n"}, less...), false, true},
		{"htop-like redraw", 100, 30, topChunks, false, false},
		{"progress bar", 60, 10, append([]string{bashPrompt + "./fetch\r\n"}, progress...), true, false},
		{"line drawing", 40, 10, dialog, false, false},
		{"long wrapped lines", 50, 12, []string{long.String(), bashPrompt}, true, false},
		{"clear and ctrl-l", 40, 8, []string{
			bashPrompt + "ls\r\nfile1 file2\r\n" + bashPrompt + "clear\r\n", "\x1b[H\x1b[2J", "\x1b[3J" + bashPrompt,
			"echo a\r\na\r\n" + bashPrompt, "\x1b[H\x1b[2J" + bashPrompt,
		}, true, false},
	}
}

// TestFastEmulatorDifferential feeds the same realistic output to the
// FastEmulator and the x/vt emulator and compares text, cursor, colours,
// attributes and modes after every chunk. The streams avoid the few
// places where the two differ on purpose: ED 2 pushes the used rows into
// the scrollback (x/vt pushes only the non-blank ones), ED 3 keeps the
// screen (x/vt clears it too), the cursor position report counts rows from
// the scroll region in origin mode, lines scroll into the scrollback only
// when the scroll region starts at the top row, and combining sequences
// (emoji ZWJ sequences, flags, VS16) stay one cell per character. x/vt
// also ignores SO and SI and the title stack, which the FastEmulator's own
// tests cover.
func TestFastEmulatorDifferential(t *testing.T) {
	for _, s := range diffStreams() {
		t.Run(s.name, func(t *testing.T) {
			vt := emuKindNamed("vt").start(t, s.cols, s.rows, 0)
			fast := emuKindNamed("fast").start(t, s.cols, s.rows, 0)
			for i, chunk := range s.chunks {
				_, _ = vt.Write([]byte(chunk))
				_, _ = fast.Write([]byte(chunk))
				if diff := compareEmulators(vt, fast, s.scrollback, !s.titleStack); diff != "" {
					t.Fatalf("after chunk %d: %s\nx/vt:\n%s\nfast:\n%s", i, diff, screenText(vt), screenText(fast))
				}
			}
		})
	}
}

// compareEmulators returns the first difference between the screens,
// cursors and modes of a and b (and their scrollback and titles when
// asked), or "".
func compareEmulators(a, b Emulator, scrollback, title bool) string {
	ac, ar := a.Size()
	if bc, br := b.Size(); ac != bc || ar != br {
		return fmt.Sprintf("size %dx%d vs %dx%d", ac, ar, bc, br)
	}
	for y := range ar {
		for x := range ac {
			if ca, cb := a.Cell(x, y), b.Cell(x, y); ca != cb {
				return fmt.Sprintf("cell %d,%d: %+v vs %+v", x, y, ca, cb)
			}
		}
	}
	switch {
	case a.Cursor() != b.Cursor():
		return fmt.Sprintf("cursor %+v vs %+v", a.Cursor(), b.Cursor())
	case a.AltScreen() != b.AltScreen():
		return fmt.Sprintf("alt screen %v vs %v", a.AltScreen(), b.AltScreen())
	case a.Modes() != b.Modes():
		return fmt.Sprintf("modes %+v vs %+v", a.Modes(), b.Modes())
	case title && a.Title() != b.Title():
		return fmt.Sprintf("title %q vs %q", a.Title(), b.Title())
	case scrollback && a.Scrollback() != b.Scrollback():
		return fmt.Sprintf("scrollback %d vs %d lines", a.Scrollback(), b.Scrollback())
	}
	for i := range a.Scrollback() * btoi(scrollback) {
		if la, lb := fmt.Sprint(a.ScrollbackLine(i)), fmt.Sprint(b.ScrollbackLine(i)); la != lb {
			return fmt.Sprintf("scrollback line %d: %s vs %s", i, la, lb)
		}
	}
	return ""
}

// FuzzFastEmulator feeds random output, split in two writes around a
// resize, and checks that nothing panics, the cursor stays on the screen,
// every cell is well formed and wide characters keep both halves.
func FuzzFastEmulator(f *testing.F) {
	for _, s := range diffStreams() {
		f.Add([]byte(strings.Join(s.chunks, "")), uint8(s.cols), uint8(s.rows))
	}
	for _, seed := range []string{
		"a\x1b[2;3r\x1b[?6h\x1b[6n界\u0301", "\x1b[?1049h\x1b[4h界界\x1b[2@\x1b[P", "\xe7\x95\x1b]2;\xff\x07\x1bP\x1b\\",
		"界\x1b[?69h\x1b[2;5s\x1b[?6h界ab\x1b[L\x1b[2'}\x1b6\x1b9\x1b[S\x1b[T\x1bM\n\x1b[3'~\x1b[4h界",
		"\x1b]8;;http://x\x1b\\界\x1b]8;;\x07\x1bP$qm\x1b\\\x1b]4;1;#fff\x07\x1b[?45h\x1b[?1045h\b\b\x1b[>1u\x1b]133;A\x07\x1b[1\"q界\x1b[?2J",
	} {
		f.Add([]byte(seed), uint8(7), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, cols, rows uint8) {
		e := NewFastEmulator(int(cols%50), int(rows%20), 50)
		go func() { _, _ = io.Copy(io.Discard, e) }()
		defer e.Close()
		half := len(data) / 2
		_, _ = e.Write(data[:half])
		checkFastInvariants(t, e)
		e.Resize(int(cols/3)+1, int(rows/5)+1)
		checkFastInvariants(t, e)
		_, _ = e.Write(data[half:])
		checkFastInvariants(t, e)
	})
}

// checkFastInvariants fails t when e's cursor is off the screen, a cell
// is malformed, a wide character lost a half, a row holds cells past its
// used bound, or a cell links to a freed link id.
func checkFastInvariants(t *testing.T, e *FastEmulator) {
	t.Helper()
	cols, rows := e.Size()
	if c := e.Cursor(); c.X < 0 || c.Y < 0 || c.X >= cols || c.Y >= rows {
		t.Fatalf("cursor %+v outside %dx%d", c, cols, rows)
	}
	for _, s := range []*fscreen{e.prim, e.alt} {
		if len(s.lines) != rows || s.top < 0 || s.bot >= rows || s.top >= s.bot && rows > 1 {
			t.Fatalf("screen has %d rows, region %d-%d", len(s.lines), s.top, s.bot)
		}
		if s.left < 0 || s.right >= cols || s.left >= s.right && cols > 1 {
			t.Fatalf("screen has %d columns, margins %d-%d", cols, s.left, s.right)
		}
		for y, l := range s.lines {
			if len(l.c) != cols || int(l.used) > cols {
				t.Fatalf("row %d: %d cells, used %d", y, len(l.c), l.used)
			}
			for x, c := range l.c {
				wide, cont := c.flags&cellWide != 0, c.flags&cellCont != 0
				switch {
				case x >= int(l.used) && c != (fcell{}):
					t.Fatalf("row %d: cell %d past used %d is %+v", y, x, l.used, c)
				case wide && (x+1 >= cols || l.c[x+1].flags&cellCont == 0):
					t.Fatalf("row %d: wide cell %d without its right half", y, x)
				case cont && (x == 0 || l.c[x-1].flags&cellWide == 0):
					t.Fatalf("row %d: right half %d without its wide cell", y, x)
				}
			}
		}
	}
	for _, s := range []*fscreen{e.prim, e.alt} {
		for y, l := range s.lines {
			for x, c := range l.c {
				if c.link != 0 && (int(c.link) > len(e.links.uris) || e.links.uris[c.link-1] == "") {
					t.Fatalf("row %d: cell %d has the freed link id %d", y, x, c.link)
				}
			}
		}
	}
	for y := range rows {
		for x := range cols {
			if c := e.Cell(x, y); c.Width < 0 || c.Width > 2 || c.Width == 0 && c.Content != "" || c.Width > 0 && c.Content == "" {
				t.Fatalf("cell %d,%d malformed: %+v", x, y, c)
			}
		}
	}
	if e.Scrollback() > 50 {
		t.Fatalf("scrollback %d lines over its cap", e.Scrollback())
	}
	for i := range e.Scrollback() {
		if len(e.ScrollbackLine(i)) > max(cols, 50) {
			t.Fatalf("scrollback line %d too long", i)
		}
	}
}

// vtOptions returns opts with the x/vt VTEmulator as the session's
// emulator.
func vtOptions(opts Options) Options {
	opts.NewEmulator = func(c, r, sb int) Emulator { return NewVTEmulator(c, r, sb) }
	return opts
}

func TestFastEmulatorThroughShell(t *testing.T) {
	before := runtime.NumGoroutine()
	s := startShell(t, Options{})
	run(t, s, "echo hello")
	waitLine(t, s, "hello")
	waitLine(t, s, "$ echo hello")
	cmd := `printf '\e[1;31mred\e[0m \e[38;5;100mx\e[48;2;1;2;3my\e[0m\n'`
	run(t, s, cmd)
	waitLine(t, s, "red xy")
	sc := s.Snapshot()
	for y := range sc.Rows {
		if LineText(sc.Line(y)) != "red xy" {
			continue
		}
		want := []Cell{
			{Content: "r", Width: 1, Fg: IndexedColor(1), Attrs: AttrBold},
			{Content: " ", Width: 1},
			{Content: "x", Width: 1, Fg: IndexedColor(100)},
			{Content: "y", Width: 1, Fg: IndexedColor(100), Bg: RGBColor(1, 2, 3)},
		}
		for i, x := range []int{0, 3, 4, 5} {
			if got := sc.Cell(x, y); got != want[i] {
				t.Errorf("cell %d: %+v, want %+v", x, got, want[i])
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	checkNoLeak(t, before)
}

// TestFastEmulatorProgramsMatchVT runs the same programs in two shells,
// one on each emulator, and after every step waits for the step's result
// to show on both and for their screens and cursors to match.
func TestFastEmulatorProgramsMatchVT(t *testing.T) {
	type step struct {
		input string
		until func(Screen) bool
		// resize, when set, is the size both sessions change to first.
		resize [2]int
	}
	shows := func(line string) func(Screen) bool {
		return func(sc Screen) bool { return hasLine(sc.Text(), line) }
	}
	prompt := func(sc Screen) bool {
		return !sc.AltScreen && LineText(sc.Line(sc.Cursor.Y)) == "$"
	}
	cases := []struct {
		name  string
		bin   string
		steps []step
	}{
		{"printf colours", "printf", []step{{`printf '\e[1;31mred\e[0m \e[38;5;100mx\e[48;2;1;2;3my\e[0m\n'` + "\r", shows("red xy"), [2]int{}}}},
		{"seq and shrink", "seq", []step{{"seq 1 60\r", shows("60"), [2]int{}}, {"", prompt, [2]int{50, 10}}}},
		{"vim", "vim", []step{
			{"vim -u NONE -i NONE -N -n note.txt\r", shows("vim-test-content"), [2]int{}},
			{"\x1b[Bx", shows("econd line"), [2]int{}},
			{"Otyped line\x1b", shows("typed line"), [2]int{}},
			{"", shows("vim-test-content"), [2]int{60, 8}},
			{":q!\r", prompt, [2]int{}},
		}},
		{"less", "less", []step{
			{"seq 1 100 | less\r", shows(":"), [2]int{}},
			{" ", shows("46"), [2]int{}},
			{"b", shows("1"), [2]int{}},
			{"/50\r", shows("50"), [2]int{}},
			{"q", prompt, [2]int{}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			needBinary(t, tc.bin)
			var sessions []*Terminal
			for _, opts := range []Options{vtOptions(Options{}), {}} {
				opts.Cols, opts.Rows, opts.Dir = 80, 24, t.TempDir()
				note := []byte("vim-test-content\nsecond line\n\tindented 界 wide\n")
				if err := os.WriteFile(opts.Dir+"/note.txt", note, 0o600); err != nil {
					t.Fatal(err)
				}
				sessions = append(sessions, startShell(t, opts))
			}
			vt, fast := sessions[0], sessions[1]
			for _, st := range tc.steps {
				for _, s := range sessions {
					if st.resize[0] > 0 {
						if err := s.Resize(st.resize[0], st.resize[1]); err != nil {
							t.Fatal(err)
						}
					}
					if _, err := s.Write([]byte(st.input)); err != nil {
						t.Fatal(err)
					}
				}
				waitFor(t, fmt.Sprintf("the result of %q on both screens", st.input), func() bool {
					a, b := vt.Snapshot(), fast.Snapshot()
					return st.until(a) && st.until(b) && a.Text() == b.Text() && a.Cursor == b.Cursor && a.AltScreen == b.AltScreen
				})
			}
		})
	}
}
