package panes

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// mouse sends one mouse event at x, y through the pane's mouse handler and
// reports whether the pane took it.
func (h *shellHarness) mouse(action tview.MouseAction, x, y int, btn tcell.ButtonMask) bool {
	took, _ := h.mouseCapture(action, x, y, btn)
	return took
}

// mouseCapture is mouse, also returning the primitive that captures the
// mouse from then on.
func (h *shellHarness) mouseCapture(action tview.MouseAction, x, y int, btn tcell.ButtonMask) (bool, tview.Primitive) {
	return h.p.MouseHandler()(action, tcell.NewEventMouse(x, y, btn, tcell.ModNone), func(tview.Primitive) {})
}

func TestShellWheelScrollsIntoCopyModeAndBack(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.run(t, "seq 1 300", "300")
	first := func() int {
		// Copy mode shows its position at the end of the first row.
		n, err := strconv.Atoi(strings.Fields(screenText(render(t, h.p, 80, 24)))[0])
		if err != nil {
			t.Fatalf("the first row is not a number: %v", err)
		}
		return n
	}
	before := first()
	if !h.mouse(tview.MouseScrollUp, 10, 10, tcell.WheelUp) || h.p.copy == nil {
		t.Fatal("wheel up did not enter copy mode")
	}
	if got := first(); got != before-wheelLines {
		t.Errorf("after one wheel step up the first row is %d, want %d", got, before-wheelLines)
	}
	h.mouse(tview.MouseScrollUp, 10, 10, tcell.WheelUp)
	h.mouse(tview.MouseScrollDown, 10, 10, tcell.WheelDown)
	if h.p.copy == nil || first() != before-wheelLines {
		t.Fatal("wheel down one step did not scroll back one step in copy mode")
	}
	h.mouse(tview.MouseScrollDown, 10, 10, tcell.WheelDown)
	if h.p.copy != nil {
		t.Error("wheeling back to the newest line did not leave copy mode")
	}
	if h.mouse(tview.MouseScrollUp, 80, 10, tcell.WheelUp) || h.p.copy != nil {
		t.Error("a wheel step outside the pane was taken")
	}
}

func TestShellCopyModeByKeyStaysAtTheBottom(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.run(t, "seq 1 100", "100")
	h.p.EnterCopyMode()
	h.mouse(tview.MouseScrollDown, 10, 10, tcell.WheelDown)
	if h.p.copy == nil {
		t.Error("wheel down left a copy mode the prefix key opened")
	}
}

func TestShellWheelOnTheAlternateScreenSendsArrows(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.typeKeys(`printf '\033[?1049h'; stty raw -echo; head -c 9 | tr '\033' E; sleep 30`)
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.wait(t, "the alternate screen", func(string) bool { return h.p.sess.AltScreen() })
	h.waitForeground(t, "head")
	h.mouse(tview.MouseScrollUp, 3, 3, tcell.WheelUp)
	h.wait(t, "three arrows up", func(text string) bool { return strings.Contains(text, "E[AE[AE[A") })
	if h.p.copy != nil {
		t.Error("the wheel entered copy mode on the alternate screen")
	}
}

func TestShellMouseGoesToAProgramThatAskedForIt(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.typeKeys(`printf '\033[?1000;1006h'; stty raw -echo; head -c 29 | tr '\033' E; sleep 30`)
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.wait(t, "mouse reporting", func(string) bool { return h.p.sess.Modes().MouseSGR })
	h.waitForeground(t, "head")
	h.mouse(tview.MouseLeftDown, 4, 2, tcell.Button1)
	h.mouse(tview.MouseLeftUp, 4, 2, tcell.ButtonNone)
	if !h.mouse(tview.MouseScrollUp, 9, 0, tcell.WheelUp) || h.p.copy != nil {
		t.Fatal("the wheel was not given to the program")
	}
	h.wait(t, "the reports", func(text string) bool { return strings.Contains(text, "E[<0;5;3ME[<0;5;3mE[<64;10;1M") })
}

func TestShellDragStaysWithTheProgram(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.typeKeys(`printf '\033[?1002;1006h'; stty raw -echo; head -c 30 | tr '\033' E; sleep 30`)
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.wait(t, "mouse reporting", func(string) bool { return h.p.sess.Modes().MouseSGR })
	h.waitForeground(t, "head")
	// tview reports a move to the spot first, with the button already
	// down: not a drag.
	h.mouse(tview.MouseMove, 4, 2, tcell.Button1)
	if took, capture := h.mouseCapture(tview.MouseLeftDown, 4, 2, tcell.Button1); !took || capture != h.p {
		t.Fatalf("a press the program took did not capture the mouse: %v %v", took, capture)
	}
	h.mouse(tview.MouseMove, 100, 2, tcell.Button1) // off the pane's right edge
	if took, capture := h.mouseCapture(tview.MouseLeftUp, 100, 2, tcell.ButtonNone); !took || capture != nil {
		t.Fatalf("the release outside the pane: took %v, capture %v", took, capture)
	}
	h.wait(t, "press, drag and release at the edge", func(text string) bool {
		return strings.Contains(text, "E[<0;5;3ME[<32;80;3ME[<0;80;3m")
	})
	if h.mouse(tview.MouseMove, 100, 2, tcell.ButtonNone) {
		t.Error("a move off the pane with no button held was taken")
	}
}

func TestShellDragSelectsInCopyMode(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.run(t, "seq 1 300", "300")
	first, err := strconv.Atoi(strings.SplitN(screenText(render(t, h.p, 80, 24)), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	// A click alone selects nothing and leaves no copy mode behind.
	h.mouse(tview.MouseLeftDown, 1, 5, tcell.Button1)
	h.mouse(tview.MouseLeftUp, 1, 5, tcell.ButtonNone)
	if h.p.copy != nil {
		t.Fatal("a click left the pane in copy mode")
	}
	if took, capture := h.mouseCapture(tview.MouseLeftDown, 0, 5, tcell.Button1); !took || capture != h.p || h.p.copy == nil {
		t.Fatalf("a press did not start a selection: took %v, capture %v", took, capture)
	}
	h.mouse(tview.MouseMove, 1, 6, tcell.Button1)
	h.mouse(tview.MouseMove, 2, 7, tcell.Button1)
	h.mouse(tview.MouseLeftUp, 2, 7, tcell.ButtonNone)
	if h.p.copy == nil || h.p.copy.sel != selChars {
		t.Fatal("the drag left no selection")
	}
	h.typeKeys("y")
	want := fmt.Sprintf("%d\n%d\n%d", first+5, first+6, first+7)
	if len(h.kept) != 1 || h.kept[0] != (kept{"shell:selection", want}) {
		t.Fatalf("kept %q, want %q", h.kept, want)
	}
}

func TestShellDragAboveThePaneScrollsBack(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.run(t, "seq 1 300", "300")
	h.mouse(tview.MouseLeftDown, 0, 2, tcell.Button1)
	top := h.p.copy.top
	h.mouse(tview.MouseMove, 0, -1, tcell.Button1)
	h.mouse(tview.MouseMove, 0, -1, tcell.Button1)
	if got := h.p.copy.top; got != top-2 {
		t.Errorf("two moves above the pane: top %d, want %d", got, top-2)
	}
	if h.p.copy.cur.Line != h.p.copy.top {
		t.Errorf("the selection does not follow to the first row: cursor line %d, top %d", h.p.copy.cur.Line, h.p.copy.top)
	}
}
