package pty

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
)

func TestEchoRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		send func(t *testing.T, s *Terminal)
	}{
		{"keys", func(t *testing.T, s *Terminal) {
			for _, r := range "echo hello" {
				if err := s.SendKey(RuneKey(r, 0)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.SendKey(Key{Key: KeyEnter}); err != nil {
				t.Fatal(err)
			}
		}},
		{"write", func(t *testing.T, s *Terminal) {
			if _, err := s.Write([]byte("echo hello\r")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startShell(t, Options{})
			tc.send(t, s)
			waitLine(t, s, "hello")
			waitLine(t, s, "$ echo hello")
		})
	}
}

// outputCell returns the cell of the first character of the screen line
// whose text is exactly line.
func outputCell(t *testing.T, s *Terminal, line string) Cell {
	t.Helper()
	sc := s.Snapshot()
	for y := range sc.Rows {
		if LineText(sc.Line(y)) == line {
			return sc.Cell(0, y)
		}
	}
	t.Fatalf("no line %q on screen:\n%s", line, sc.Text())
	return Cell{}
}

func TestColoursThroughShell(t *testing.T) {
	s := startShell(t, Options{})
	cases := []struct {
		name, sgr, word string
		check           func(Cell) bool
	}{
		{"red", "31", "red", func(c Cell) bool { return c.Fg == IndexedColor(1) && c.Attrs == 0 }},
		{"bold", "1", "bold", func(c Cell) bool { return c.Attrs == AttrBold }},
		{"reverse", "7", "reverse", func(c Cell) bool { return c.Attrs == AttrReverse }},
		{"bold green on blue", "1;32;44", "mixed", func(c Cell) bool {
			return c.Attrs == AttrBold && c.Fg == IndexedColor(2) && c.Bg == IndexedColor(4)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := fmt.Sprintf(`printf '\e[%sm%s\e[0m\n'`, tc.sgr, tc.word)
			run(t, s, cmd)
			waitLine(t, s, tc.word)
			c := outputCell(t, s, tc.word)
			if !tc.check(c) {
				t.Errorf("cell %+v", c)
			}
			if plain := outputCell(t, s, "$ "+cmd); plain.Attrs != 0 || plain.Fg != ColorDefault {
				t.Errorf("command line styled: %+v", plain)
			}
		})
	}
}

func TestAltScreenThroughShell(t *testing.T) {
	s := startShell(t, Options{})
	run(t, s, "echo primary-marker")
	waitLine(t, s, "primary-marker")
	run(t, s, `printf '\e[?1049h\e[HALT-SCREEN'; read -r x; printf '\e[?1049l'`)
	waitFor(t, "alternate screen", func() bool { return s.AltScreen() && hasLine(s.Text(), "ALT-SCREEN") })
	if strings.Contains(s.Text(), "primary-marker") {
		t.Fatalf("alternate screen shows primary content:\n%s", s.Text())
	}
	if err := s.SendKey(Key{Key: KeyEnter}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "primary screen", func() bool { return !s.AltScreen() && strings.HasPrefix(lastLine(s.Text()), "$") })
	text := s.Text()
	if !hasLine(text, "primary-marker") || hasLine(text, "ALT-SCREEN") {
		t.Fatalf("primary screen not restored:\n%s", text)
	}
}

func TestResizeThroughShell(t *testing.T) {
	needBinary(t, "tput", "seq")
	cases := []struct {
		name       string
		cols, rows int
	}{
		{"shrink rows", 80, 10},
		{"shrink both", 50, 8},
		{"grow", 100, 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startShell(t, Options{Cols: 80, Rows: 24})
			run(t, s, "seq 1 40")
			waitFor(t, "prompt on the last row", func() bool {
				sc := s.Snapshot()
				return sc.Cursor.Y == 23 && LineText(sc.Line(23)) == "$"
			})
			if err := s.Resize(tc.cols, tc.rows); err != nil {
				t.Fatal(err)
			}
			sc := s.Snapshot()
			if sc.Cols != tc.cols || sc.Rows != tc.rows {
				t.Fatalf("snapshot %d×%d", sc.Cols, sc.Rows)
			}
			if tc.rows < 24 {
				if got := LineText(sc.Line(tc.rows - 1)); got != "$" {
					t.Fatalf("prompt lost after resize: last row %q\n%s", got, sc.Text())
				}
				if got := LineText(sc.Line(tc.rows - 2)); got != "40" {
					t.Errorf("row above the prompt %q, want 40", got)
				}
			}
			run(t, s, "echo size=$(tput cols)x$(tput lines)")
			waitLine(t, s, fmt.Sprintf("size=%dx%d", tc.cols, tc.rows))
		})
	}
}

func TestScrollbackThroughShell(t *testing.T) {
	needBinary(t, "seq")
	cases := []struct {
		name       string
		scrollback int
		want       int
	}{
		{"default", 0, DefaultScrollback},
		{"configured", 500, 500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startShell(t, Options{Scrollback: tc.scrollback})
			run(t, s, "seq 1 3000")
			waitFor(t, "3000 and a prompt", func() bool {
				return strings.HasSuffix(s.Text(), "3000\n$")
			})
			if got := s.ScrollbackLen(); got != tc.want {
				t.Fatalf("ScrollbackLen = %d, want %d", got, tc.want)
			}
			lines := strings.Split(s.ScrollbackText(0), "\n")
			if len(lines) != tc.want {
				t.Fatalf("ScrollbackText(0) has %d lines, want %d", len(lines), tc.want)
			}
			// The screen shows 2977…3000 and the prompt; the scrollback
			// ends just above it.
			if last := lines[len(lines)-1]; last != "2977" {
				t.Errorf("newest scrollback line %q, want 2977", last)
			}
			if first := lines[0]; first != fmt.Sprint(2977-tc.want+1) {
				t.Errorf("oldest scrollback line %q", first)
			}
			if got := s.ScrollbackText(3); got != "2975\n2976\n2977" {
				t.Errorf("ScrollbackText(3) = %q", got)
			}
		})
	}
}

func TestCursorPositionReplyReachesProgram(t *testing.T) {
	s := startShell(t, Options{})
	// Echo goes off before the query: a reply that came before read
	// turned echo off would be echoed onto the line "got" is printed on.
	run(t, s, `stty -echo; printf '\e[6n'; read -r -d R pos; stty echo; echo "got ${pos:2}"`)
	re := regexp.MustCompile(`(?m)^got \d+;\d+$`)
	waitFor(t, "the program to print the reply", func() bool { return re.MatchString(s.Text()) })
}

func TestPasteThroughShell(t *testing.T) {
	s := startShell(t, Options{})
	if !s.Modes().BracketedPaste {
		t.Skip("readline did not enable bracketed paste")
	}
	if err := s.Paste("echo pasted-1\necho pasted-2"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pasted text on the command line", func() bool { return strings.Contains(s.Text(), "echo pasted-2") })
	if hasLine(s.Text(), "pasted-1") {
		t.Fatalf("pasted newline ran the command:\n%s", s.Text())
	}
	if err := s.SendKey(Key{Key: KeyEnter}); err != nil {
		t.Fatal(err)
	}
	waitLine(t, s, "pasted-1")
	waitLine(t, s, "pasted-2")
}

func TestVim(t *testing.T) {
	if _, err := os.Stat("/usr/bin/vim"); err != nil {
		t.Skip("vim not installed")
	}
	cases := []struct {
		name       string
		resizeTo   [2]int
		wantCursor bool
	}{
		{"open and quit", [2]int{}, true},
		{"shrink while open", [2]int{60, 8}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := t.TempDir() + "/note.txt"
			if err := os.WriteFile(file, []byte("vim-test-content\nsecond line\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startShell(t, Options{Cols: 80, Rows: 24})
			run(t, s, "seq 1 30")
			waitFor(t, "prompt at the bottom", func() bool { return s.Snapshot().Cursor.Y == 23 })
			run(t, s, "/usr/bin/vim -u NONE -i NONE -N "+file)
			waitFor(t, "vim on the alternate screen", func() bool {
				return s.AltScreen() && hasLine(s.Text(), "vim-test-content")
			})
			if !s.Modes().AppCursor {
				t.Error("vim did not enable application cursor keys")
			}
			// Down arrow in application mode moves to the second line; x
			// deletes its first character.
			if err := s.SendKey(Key{Key: KeyDown}); err != nil {
				t.Fatal(err)
			}
			if err := s.SendKey(RuneKey('x', 0)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the edit", func() bool { return hasLine(s.Text(), "econd line") })
			if tc.resizeTo[0] > 0 {
				if err := s.Resize(tc.resizeTo[0], tc.resizeTo[1]); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "vim to redraw", func() bool { return hasLine(s.Text(), "vim-test-content") })
			}
			run(t, s, ":q!")
			waitFor(t, "the shell prompt", func() bool {
				sc := s.Snapshot()
				return !sc.AltScreen && strings.HasPrefix(LineText(sc.Line(sc.Cursor.Y)), "$")
			})
			run(t, s, "echo after-vim")
			waitLine(t, s, "after-vim")
		})
	}
}

func TestSetCellSize(t *testing.T) {
	s := startShell(t, Options{Cols: 80, Rows: 24})
	pixels := func() (int, int) {
		t.Helper()
		ws, err := pty.GetsizeFull(s.master)
		if err != nil {
			t.Fatal(err)
		}
		return int(ws.X), int(ws.Y)
	}
	if x, y := pixels(); x != 0 || y != 0 {
		t.Errorf("pixels before SetCellSize %d×%d, want unknown (0×0)", x, y)
	}
	if err := s.SetCellSize(9, 18); err != nil {
		t.Fatal(err)
	}
	if x, y := pixels(); x != 720 || y != 432 {
		t.Errorf("pixels %d×%d, want 720×432", x, y)
	}
	if err := s.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	if x, y := pixels(); x != 900 || y != 540 {
		t.Errorf("pixels after resize %d×%d, want 900×540", x, y)
	}
	if err := s.SetCellSize(0, 5); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	fe := s.emu.(*FastEmulator)
	w, h := fe.cellW, fe.cellH
	s.mu.Unlock()
	if w != 9 || h != 18 {
		t.Errorf("emulator cell %d×%d, want 9×18 (a zero size is ignored)", w, h)
	}
}
