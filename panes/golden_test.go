package panes

import (
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/internal/goldentest"
	"github.com/kwsdev/kws/internal/screentest"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// testEnv is an Env whose Update runs at once on the test goroutine and
// whose clock is fixed.
func testEnv() *pane.Env {
	return &pane.Env{
		Theme:  themes.Default(),
		Update: func(fn func()) { fn() },
		Now:    func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) },
	}
}

// render draws p on a w×h simulation screen and returns the screen.
func render(t *testing.T, p tview.Primitive, w, h int) tcell.SimulationScreen {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Fini)
	s.SetSize(w, h)
	p.SetRect(0, 0, w, h)
	p.Draw(s)
	s.Show()
	return s
}

// styleAt returns the style of the cell at x, y.
func styleAt(s tcell.SimulationScreen, x, y int) tcell.Style {
	cells, w, _ := s.GetContents()
	return cells[y*w+x].Style
}

// screenText returns the simulation screen's content, one line per row.
func screenText(s tcell.SimulationScreen) string { return screentest.Text(s) }

// golden compares got with testdata/<name>.golden; -update rewrites it.
func golden(t *testing.T, name, got string) { goldentest.Check(t, name, got) }
