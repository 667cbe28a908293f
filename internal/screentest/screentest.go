// Package screentest reads what a tcell simulation screen shows, for the
// workstation's screen tests and its headless driver.
package screentest

import (
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Text returns the screen's content, one line per row, trailing spaces
// removed.
func Text(s tcell.SimulationScreen) string {
	cells, w, h := s.GetContents()
	var b strings.Builder
	for y := range h {
		var row strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				row.WriteByte(' ')
				continue
			}
			row.WriteString(string(c.Runes))
		}
		b.WriteString(strings.TrimRight(row.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
