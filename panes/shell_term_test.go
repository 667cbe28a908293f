package panes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/themes"
)

// waitTitle waits until the pane's title is want, as the layout would
// read it on its next frame.
func (h *shellHarness) waitTitle(t *testing.T, want string) {
	t.Helper()
	h.until(t, "the title "+want, func() bool { return h.p.Title() == want })
}

// until waits until cond holds, polling the pane's state; it fails the
// test, naming what, the title and the screen, after shellWaitTimeout.
func (h *shellHarness) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(shellWaitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; title %q, screen:\n%s", what, h.p.Title(), h.p.sess.Text())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestShellTitleFollowsForegroundJob runs a job that prints nothing: the
// title names it while it runs, as tmux's automatic rename does, and the
// shell again once it has ended.
func TestShellTitleFollowsForegroundJob(t *testing.T) {
	h := newShellHarness(t)
	h.waitTitle(t, "shell: sh")
	h.typeKeys("sleep 30")
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	// The title says sleep only once sleep is the foreground job, so the
	// Ctrl-c below reaches it, not the shell forking it.
	h.waitTitle(t, "shell: sleep")
	h.press(tcell.KeyCtrlC, 0, tcell.ModCtrl)
	h.waitTitle(t, "shell: sh")
	h.waitPrompt(t)
}

// lightShell is a shell pane drawn with the light skin.
func lightShell(t *testing.T) *shellHarness {
	t.Helper()
	th, err := themes.Load("light")
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Theme = th
	p, err := NewShellPane(env, pty.Options{Shell: "/bin/sh", Env: []string{"PS1=$ ", "ENV=", "HISTFILE=/dev/null"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	h := &shellHarness{p: p}
	h.waitPrompt(t)
	return h
}

// TestShellAnswersWithSkinColours asks the pane for its background the
// way vim does: a light skin's pane is white, so the answer is white (it
// was always black), ended with ST like the query.
func TestShellAnswersWithSkinColours(t *testing.T) {
	h := lightShell(t)
	h.run(t, `stty raw -echo; printf '\033]11;?\033\\'; r=$(dd bs=1 count=25 2>/dev/null | tr '\033' E); stty sane; echo "got $r"`,
		`got E]11;rgb:ffff/ffff/ffffE\`)
}

// TestShellDrawsColoursTheProgramSet sets the default background with
// OSC 11: the pane's empty cells take it, and the query answers it.
func TestShellDrawsColoursTheProgramSet(t *testing.T) {
	h := lightShell(t)
	s := render(t, h.p, 40, 6)
	if _, bg, _ := styleAt(s, 39, 5).Decompose(); bg != tcell.NewHexColor(0xffffff) {
		t.Fatalf("empty cell background %v, want the skin's white", bg)
	}
	h.run(t, `printf '\033]11;#102030\007'; echo set`, "set")
	s = render(t, h.p, 40, 6)
	if _, bg, _ := styleAt(s, 39, 5).Decompose(); bg != tcell.NewRGBColor(0x10, 0x20, 0x30) {
		t.Errorf("empty cell background %v after OSC 11, want #102030", bg)
	}
}

// TestShellTellsFocusToProgramsThatAsk: a program that turned on focus
// events (mode 1004) reads CSI O when the pane loses the focus and CSI I
// when it gets it back.
func TestShellTellsFocusToProgramsThatAsk(t *testing.T) {
	h := newShellHarness(t)
	script := filepath.Join(t.TempDir(), "focus.py")
	if err := os.WriteFile(script, []byte(`import os, sys, tty
tty.setraw(0)
sys.stdout.write("\x1b[?1004hready\r\n")
sys.stdout.flush()
b = b""
while len(b) < 6:
    b += os.read(0, 6)
sys.stdout.write("got " + b.hex() + "\r\n")
`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.typeKeys("python3 " + script)
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.wait(t, "the program ready", func(text string) bool { return strings.Contains(text, "ready") })
	h.p.Blur()
	h.p.Focus(func(tview.Primitive) {})
	h.wait(t, "the focus events", func(text string) bool { return strings.Contains(text, "got 1b5b4f1b5b49") })
}

// cursorScreen is a simulation screen that keeps the cursor style and
// colour asked of it, which tcell's simulation drops.
type cursorScreen struct {
	tcell.SimulationScreen
	style tcell.CursorStyle
	color tcell.Color
}

func (c *cursorScreen) SetCursorStyle(cs tcell.CursorStyle, ccs ...tcell.Color) {
	c.style, c.color = cs, tcell.ColorNone
	if len(ccs) > 0 {
		c.color = ccs[0]
	}
}

// TestShellShapesTheCursorAsTheProgramAsks: a program's DECSCUSR (vim's
// bar in insert mode) and OSC 12 colour reach the screen while its pane
// has the focus.
func TestShellShapesTheCursorAsTheProgramAsks(t *testing.T) {
	h := newShellHarness(t)
	h.run(t, `printf '\033[6 q\033]12;#ff0000\007'; echo shaped`, "shaped")
	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Fini)
	sim.SetSize(80, 24)
	s := &cursorScreen{SimulationScreen: sim}
	h.p.Focus(func(tview.Primitive) {})
	h.p.SetRect(0, 0, 80, 24)
	h.p.Draw(s)
	if s.style != tcell.CursorStyleSteadyBar || s.color != tcell.NewRGBColor(0xff, 0, 0) {
		t.Fatalf("the cursor is drawn as style %d, colour %v", s.style, s.color)
	}
	h.run(t, `printf '\033[0 q\033]112\007'; echo plain`, "plain")
	h.p.Draw(s)
	if s.style != tcell.CursorStyleDefault || s.color != tcell.ColorReset {
		t.Fatalf("after the program reset it: style %d, colour %v", s.style, s.color)
	}
}
