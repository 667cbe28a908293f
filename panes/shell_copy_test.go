package panes

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/pty"
)

// copyCells turns a line of text into cells, a wide character taking two.
func copyCells(s string) []pty.Cell {
	var out []pty.Cell
	for _, r := range s {
		c := pty.BlankCell
		c.Content = string(r)
		if r >= 0x1100 {
			c.Width = 2
			out = append(out, c, pty.Cell{})
			continue
		}
		out = append(out, c)
	}
	return out
}

// newCopyPane returns a shell pane without a shell whose copy mode shows
// lines, rows lines at a time, with the cursor on the last line.
func newCopyPane(lines []string, rows int) (*ShellPane, *[]string) {
	var notes []string
	env := testEnv()
	env.Notify = func(msg string) { notes = append(notes, msg) }
	p := &ShellPane{Box: tview.NewBox(), env: env}
	p.copyKeys = env.KeyTable("copy", copyActions(p)...)
	cells := make([][]pty.Cell, len(lines))
	for i, l := range lines {
		cells[i] = copyCells(l)
	}
	p.copy = &copyMode{hist: pty.NewHistory(cells, 0), rows: rows, cols: 10}
	p.copy.goTo(pty.Pos{Line: len(lines) - 1})
	return p, &notes
}

// pressKeys sends keys written as in config.toml, separated by spaces.
func pressKeys(p *ShellPane, keys string) {
	for _, f := range strings.Fields(keys) {
		k := keymap.MustParse(f)
		mod := tcell.ModNone
		if k.Alt {
			mod = tcell.ModAlt
		}
		p.InputHandler()(tcell.NewEventKey(k.Code, k.Rune, mod), func(tview.Primitive) {})
	}
}

func TestShellCopyMoves(t *testing.T) {
	lines := []string{"zero", "one x", "two", "three x", "a界b", "five", "sun x", "seven"}
	p, notes := newCopyPane(lines, 3)
	steps := []struct {
		keys      string
		line, col int
		top       int
	}{
		{"g", 0, 0, 0},
		{"G", 7, 0, 5},
		{"PgUp", 4, 0, 2},
		{"Ctrl-u", 3, 0, 1},
		{"$", 3, 6, 1},
		{"0", 3, 0, 1},
		{"j l", 4, 1, 2},
		{"l", 4, 3, 2},
		{"h", 4, 1, 2},
		{"Ctrl-d", 5, 1, 3},
		{"/ x Enter", 6, 4, 4},
		{"n", 1, 4, 1},
		{"N", 6, 4, 4},
		{"? t h Backspace w Enter", 2, 0, 2},
		{"/ q Esc", 2, 0, 2},
		{"End", 2, 2, 2},
	}
	for _, st := range steps {
		pressKeys(p, st.keys)
		c := p.copy
		if c.cur != (pty.Pos{Line: st.line, Col: st.col}) || c.top != st.top {
			t.Fatalf("after %q: cursor %+v top %d, want %d:%d top %d (notes %q)",
				st.keys, c.cur, c.top, st.line, st.col, st.top, *notes)
		}
	}
	pressKeys(p, "q")
	if p.copy != nil {
		t.Error("q did not leave copy mode")
	}
}

func TestShellCopySelect(t *testing.T) {
	lines := []string{"alpha", "beta", "gamma"}
	cases := []struct {
		keys, kind, want string
	}{
		{"g l v j l", "shell:selection", "lpha\nbet"},
		{"g j V k", "shell:selection", "alpha\nbeta"},
		{"g v v", "shell:screen", "alpha\nbeta\ngamma"},
		{"g V j j", "shell:selection", "alpha\nbeta\ngamma"},
	}
	for _, tc := range cases {
		t.Run(tc.keys, func(t *testing.T) {
			p, notes := newCopyPane(lines, 3)
			var got []string
			p.keep = func(kind string, text []byte) (string, error) {
				got = append(got, kind, string(text))
				return "ctx:1", nil
			}
			pressKeys(p, tc.keys+" K")
			if len(got) != 2 || got[0] != tc.kind || got[1] != tc.want {
				t.Fatalf("kept %q, want %s %q (notes %q)", got, tc.kind, tc.want, *notes)
			}
			if p.copy == nil {
				t.Fatal("K left copy mode")
			}
		})
	}
	p, notes := newCopyPane(lines, 3)
	pressKeys(p, "y")
	if p.copy == nil || len(*notes) != 1 || !strings.Contains((*notes)[0], "nothing selected") {
		t.Errorf("y without a selection: copy mode %v, notes %q", p.copy != nil, *notes)
	}
}

func TestShellCopyDrawWide(t *testing.T) {
	p, _ := newCopyPane([]string{"a界b", "x"}, 2)
	pressKeys(p, "g l")
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(10, 2)
	p.drawCopy(s, 0, 0, 10, 2)
	s.Show()
	// The simulation screen reports the right half of 界 as a blank cell.
	if got := screenText(s); got != "a界 b [1/2]\nx\n" {
		t.Errorf("screen %q", got)
	}
	if got := styleAt(s, 1, 0); got != testEnv().Theme.CopyCursor.TCell() {
		t.Errorf("the wide character under the cursor has style %v", got)
	}
}

// TestShellCopyJumpsBetweenPrompts: [ and ] go to the previous and next
// line a shell marked as a prompt (OSC 133 A), as tmux's previous-prompt
// and next-prompt do; with none that way the cursor stays.
func TestShellCopyJumpsBetweenPrompts(t *testing.T) {
	p, _ := newCopyPane([]string{"$ make", "ok", "$ ls", "a b", "$ git st", "clean"}, 3)
	for _, i := range []int{0, 2, 4} {
		p.copy.hist.MarkPrompt(i)
	}
	for _, step := range []struct {
		keys string
		line int
	}{{"[", 4}, {"[", 2}, {"[", 0}, {"[", 0}, {"]", 2}, {"] ]", 4}, {"]", 4}} {
		pressKeys(p, step.keys)
		if p.copy.cur.Line != step.line {
			t.Fatalf("after %q the cursor is on line %d, want %d", step.keys, p.copy.cur.Line, step.line)
		}
	}
}

// TestCellStyleCarriesTheLink: a cell of an OSC 8 link is drawn with its
// URI, which tcell sends the outer terminal as a link.
func TestCellStyleCarriesTheLink(t *testing.T) {
	base := testEnv().Theme.Base
	plain := pty.BlankCell
	plain.Content = "x"
	linked := plain
	linked.Link = "https://example.com/a"
	if got := cellStyle(linked, base); got != cellStyle(plain, base).Url(linked.Link) || got == cellStyle(plain, base) {
		t.Fatalf("the link's cell is drawn as %+v", got)
	}
}
