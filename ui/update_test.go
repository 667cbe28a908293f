package ui

import (
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// TestAnswersAreNotPaced: updates are paced one frame per gap (an hour
// here, so a paced update never runs by itself), but a program's answer
// to typing draws at once: right after a frame, and while a flood's update
// waits for its frame, which then runs with it.
func TestAnswersAreNotPaced(t *testing.T) {
	d, _ := newTestDriver(t, 80, 24, "shell")
	s := d.Script(t)
	s.Do(func() { d.App.frameGap = time.Hour })
	ran := make(chan string, 3)
	expect := func(want ...string) {
		t.Helper()
		for _, w := range want {
			select {
			case got := <-ran:
				if got != w {
					t.Fatalf("ran %q, want %q", got, w)
				}
			case <-time.After(driverTimeout):
				t.Fatalf("%q waited for the next frame", w)
			}
		}
	}
	d.App.Update(func() { ran <- "first" })
	expect("first")
	d.App.Answer(func() { ran <- "echo" })
	expect("echo")
	d.App.Update(func() { ran <- "flood" })
	d.App.Answer(func() { ran <- "echo" })
	expect("flood", "echo")
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
