package ui

import (
	"testing"

	"github.com/gdamore/tcell/v2"
)

// countingScreen counts the cells handed to the screen below.
type countingScreen struct {
	tcell.Screen
	set int
}

func (c *countingScreen) SetContent(x, y int, r rune, comb []rune, style tcell.Style) {
	c.set++
	c.Screen.SetContent(x, y, r, comb, style)
}

// TestFrameHandsOnlyChanges draws frames the way tview's primitives do,
// each cell's background first and then its text: tcell is handed every
// cell once at the first frame, nothing for a frame that ends as the last
// one, and the one cell that changed; what it shows is the frame, with
// the colour a ColorNone background kept from the fill. A new size hands
// every cell again, and PutStr writes through the grid as SetContent does.
func TestFrameHandsOnlyChanges(t *testing.T) {
	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		t.Fatal(err)
	}
	defer sim.Fini()
	sim.SetSize(10, 2)
	counted := &countingScreen{Screen: sim}
	f := newFrameScreen(counted)
	fill := tcell.StyleDefault.Background(tcell.ColorNavy)
	draw := func(text string) {
		w, h := f.Size()
		for y := range h {
			for x := range w {
				f.SetContent(x, y, ' ', nil, fill)
			}
		}
		for i, r := range text {
			f.SetContent(i, 0, r, nil, tcell.StyleDefault.Foreground(tcell.ColorYellow).Background(tcell.ColorNone))
		}
		f.Show()
	}
	for _, step := range []struct {
		text string
		set  int
	}{{"hello", 20}, {"hello", 0}, {"hellO", 1}} {
		counted.set = 0
		draw(step.text)
		if counted.set != step.set {
			t.Errorf("a frame showing %q handed tcell %d cells, want %d", step.text, counted.set, step.set)
		}
	}
	cells, _, _ := sim.GetContents()
	if got := string(cells[4].Runes); got != "O" {
		t.Fatalf("the screen shows %q at 4,0", got)
	}
	if fg, bg, _ := cells[4].Style.Decompose(); fg != tcell.ColorYellow || bg != tcell.ColorNavy {
		t.Fatalf("the cell's colours are %v on %v, want yellow on navy", fg, bg)
	}
	if r, _, st, _ := f.GetContent(1, 0); r != 'e' || st != tcell.StyleDefault.Foreground(tcell.ColorYellow).Background(tcell.ColorNavy) {
		t.Fatalf("GetContent(1, 0) = %q, %v", r, st)
	}
	// A new size starts afresh: every cell goes to tcell again.
	sim.SetSize(12, 2)
	counted.set = 0
	draw("hellO")
	if counted.set != 24 {
		t.Fatalf("the first frame at a new size handed tcell %d cells, want 24", counted.set)
	}
	// tcell's other ways to write cells go through the grid too.
	counted.set = 0
	f.PutStr(0, 1, "ab")
	f.Show()
	cells, w, _ := sim.GetContents()
	if counted.set != 2 || string(cells[w].Runes)+string(cells[w+1].Runes) != "ab" {
		t.Fatalf("PutStr handed tcell %d cells; the row shows %q%q", counted.set, cells[w].Runes, cells[w+1].Runes)
	}
}
