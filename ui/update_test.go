package ui

import (
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// TestUpdatesAfterAKeyAreNotPaced: updates are paced one frame per gap,
// but the first after a key (a shell's echo) runs at once. The gap here is
// an hour, so a paced update never runs.
func TestUpdatesAfterAKeyAreNotPaced(t *testing.T) {
	d, _ := newTestDriver(t, 80, 24, "shell")
	s := d.Script(t)
	s.Do(func() { d.App.frameGap = time.Hour })
	ran := make(chan string, 2)
	d.App.Update(func() { ran <- "first" })
	if got := <-ran; got != "first" {
		t.Fatal(got)
	}
	s.Press("x")
	d.App.Update(func() { ran <- "after the key" })
	select {
	case <-ran:
	case <-time.After(driverTimeout):
		t.Fatal("the update after a key waited for the next frame")
	}
}

// TestAnAnswerOvertakesAPacedFrame: while a flood's update waits for its
// frame (an hour here), a program's answer to typing draws at once, with
// the update that waited.
func TestAnAnswerOvertakesAPacedFrame(t *testing.T) {
	d, _ := newTestDriver(t, 80, 24, "shell")
	s := d.Script(t)
	s.Do(func() { d.App.frameGap = time.Hour })
	ran := make(chan string, 3)
	d.App.Update(func() { ran <- "first" })
	if got := <-ran; got != "first" {
		t.Fatal(got)
	}
	d.App.Update(func() { ran <- "flood" })
	d.App.Answer(func() { ran <- "echo" })
	for _, want := range []string{"flood", "echo"} {
		select {
		case got := <-ran:
			if got != want {
				t.Fatalf("ran %q, want %q", got, want)
			}
		case <-time.After(driverTimeout):
			t.Fatalf("the answer waited for the flood's frame (%s never ran)", want)
		}
	}
}

// TestAKeyForAProgramSkipsItsFrame: a key the focused pane's program
// takes (a shell's) skips the frame tview draws for it, since nothing shows
// until the program answers; a key that dismisses a notice, the prefix and
// a key for a pane that keeps it draw as before. The skipped frame leaves
// the screen as it was: the application's screen never clears.
func TestAKeyForAProgramSkipsItsFrame(t *testing.T) {
	d, ff := newTestDriver(t, 80, 24, "shell")
	s := d.Script(t)
	key := tcell.NewEventKey(tcell.KeyRune, 'x', 0)
	skips := func(setup func()) (skip bool) {
		s.Do(func() {
			setup()
			d.App.capture(key)
			skip, d.App.skipFrame = d.App.skipFrame, false
		})
		return skip
	}
	if skips(func() {}) {
		t.Fatal("a key for a pane that does not pass keys skipped its frame")
	}
	ff.made[0].passes = true
	if !skips(func() {}) {
		t.Fatal("a key for the program drew a frame of its own")
	}
	if skips(func() { d.App.Notify("kept ctx:1") }) {
		t.Fatal("a key that dismissed a notice skipped the frame that hides it")
	}
	if skips(func() { d.App.pending = true }) {
		t.Fatal("a key after the prefix skipped its frame")
	}

	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		t.Fatal(err)
	}
	sim.SetContent(0, 0, 'k', nil, tcell.StyleDefault)
	newFrameScreen(sim).Clear()
	if r, _, _, _ := sim.GetContent(0, 0); r != 'k' {
		t.Fatalf("the application's screen cleared a cell: %q", r)
	}
}
