package panes

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/themes"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testEnv is an Env whose Update runs at once on the test goroutine and
// whose clock is fixed.
func testEnv() *Env {
	return &Env{
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

// screenText returns the simulation screen's content, one line per row,
// trailing spaces removed.
func screenText(s tcell.SimulationScreen) string {
	cells, w, h := s.GetContents()
	var b strings.Builder
	for y := range h {
		var line strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				line.WriteByte(' ')
				continue
			}
			line.WriteString(string(c.Runes))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// styleAt returns the style of the cell at x, y.
func styleAt(s tcell.SimulationScreen, x, y int) tcell.Style {
	cells, w, _ := s.GetContents()
	return cells[y*w+x].Style
}

// golden compares got with testdata/<name>.golden; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("screen differs from %s (go test -update rewrites it):\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}
