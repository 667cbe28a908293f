package ui

import (
	"fmt"
	"strings"
	"testing"
)

// TestNextLayoutCyclesThePresets presses C-b Space over five panes: each
// press arranges them as the next of tmux's presets, focus staying put;
// the screens are goldens at 80x24 and 160x48.
func TestNextLayoutCyclesThePresets(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d, _ := newTestDriver(t, size[0], size[1], "agent", "shell", "vault", "stats", "agent")
			s := d.Script(t)
			s.Press("Ctrl-b", "q", "1")
			for _, p := range append(Presets, Presets[0]) {
				s.Press("Ctrl-b", "Space")
				if got := focusedName(d); got != "shell-1" {
					t.Fatalf("%s: focus moved to %q", p, got)
				}
				checkPreset(t, p, leaves(d), size[0], size[1]-2)
				golden(t, fmt.Sprintf("layout_%s_%dx%d", p, size[0], size[1]), d.Text())
			}
		})
	}
}

// checkPreset checks the panes' rectangles against preset p in a w×h
// layout area.
func checkPreset(t *testing.T, p Preset, ls []leaf, w, h int) {
	t.Helper()
	area := 0
	for _, l := range ls {
		area += l.w * l.h
	}
	if area != w*h {
		t.Fatalf("%s: the panes cover %d cells of %d", p, area, w*h)
	}
	for i, l := range ls[1:] {
		prev := ls[i]
		var ok bool
		switch p {
		case EvenHorizontal:
			ok = l.h == h && l.x == prev.x+prev.w && abs(l.w-prev.w) <= 1
		case EvenVertical:
			ok = l.w == w && l.y == prev.y+prev.h && abs(l.h-prev.h) <= 1
		case MainHorizontal:
			ok = ls[0].w == w && l.y == ls[0].h && l.h == h-ls[0].h
		case MainVertical:
			ok = ls[0].h == h && l.x == ls[0].w && l.w == w-ls[0].w
		case Tiled:
			// Five panes tile as three rows: two, two and one.
			ok = len(ls) == 5 && ls[0].y == ls[1].y && ls[2].y == ls[3].y && ls[4].w == w && ls[2].y > ls[0].y && ls[4].y > ls[2].y
		}
		if !ok {
			t.Fatalf("%s: pane %d is %+v after %+v", p, i+1, l, prev)
		}
	}
}

func TestSelectLayoutByKeyAndCommandUnzooms(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40, "shell", "shell", "shell")
	s := d.Script(t)
	s.Press("Ctrl-b", "z", "Ctrl-b", "Alt-2")
	if strings.Contains(d.Text(), "[Z]") {
		t.Fatalf("a layout left the pane zoomed:\n%s", d.Text())
	}
	checkPreset(t, EvenVertical, leaves(d), 120, 38)
	// Zoom works on the new layout, and a command names the preset.
	s.Press("Ctrl-b", "z")
	if !strings.Contains(d.Text(), "[Z]") {
		t.Fatalf("zoom after a layout:\n%s", d.Text())
	}
	s.Press("Ctrl-b", ":")
	s.Type("select-layout main-vertical")
	s.Press("Enter")
	checkPreset(t, MainVertical, leaves(d), 120, 38)
	// The next preset after main-vertical is tiled.
	s.Press("Ctrl-b", "Space")
	var p Preset
	_ = d.Do(func() { p = d.App.layout.preset })
	if p != Tiled {
		t.Fatalf("C-b Space after main-vertical chose %q", p)
	}
}

func TestSpawnTilesAt80x24(t *testing.T) {
	d, ff := newTestDriver(t, 80, 24)
	s := d.Script(t)
	s.Press("Ctrl-b", ":")
	s.Type("spawn 3")
	s.Press("Enter")
	ls := leaves(d)
	if len(ls) != 7 || len(ff.made) != 7 {
		t.Fatalf("%d panes after spawn 3 on the default four", len(ls))
	}
	// Tiled: three columns of a third of the width each (splitting the
	// largest pane left quarters, and 8 columns in a busier window).
	for _, l := range ls {
		if l.w < 80/3-1 || l.h < minPaneH {
			t.Fatalf("pane %q is %dx%d: not tiled\n%s", l.pane.Title(), l.w, l.h, d.Text())
		}
	}
	if got := focusedName(d); got != "agent-4" {
		t.Fatalf("focus after spawn is on %q", got)
	}
	golden(t, "spawn3_80x24", d.Text())
	// More than fit: as many as tile at the smallest pane size open, and
	// the rest go on in a new window.
	s.Press("Ctrl-b", ":")
	s.Type("spawn 16")
	s.Press("Enter")
	s.WaitFor("agents went on in window 1").WaitFor("1:agents*")
	var total int
	s.Do(func() {
		for _, w := range d.App.Windows() {
			total += w.Panes
		}
	})
	if total != 7+16 {
		t.Fatalf("%d panes in all windows after spawn 16, want %d", total, 7+16)
	}
	for _, l := range d.App.allLeaves() {
		if l.w != 0 && (l.w < minPaneW || l.h < minPaneH) {
			t.Fatalf("pane %dx%d is smaller than a split may leave", l.w, l.h)
		}
	}
}
