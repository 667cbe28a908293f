package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

func TestSplitZoomFocusClose(t *testing.T) {
	d, ff := newTestDriver(t, 120, 40, "shell")
	s := d.Script(t)
	s.Press("Ctrl-b", "%").Focused("shell-2")
	l1, l2 := leaves(d)[0], leaves(d)[1]
	if l1.x >= l2.x || l1.y != l2.y || l1.w+l2.w != 120 {
		t.Fatalf("left/right split gave %+v and %+v", l1, l2)
	}
	s.Press("Ctrl-b", `"`)
	l3 := leaves(d)[2]
	if l3.x != l2.x || l3.y <= l2.y || l3.w != l2.w {
		t.Fatalf("top/bottom split of the right pane gave %+v under %+v", l3, l2)
	}
	// Focus by direction: right from shell-1 goes back to the right-hand
	// pane focused last, as in tmux.
	s.Press("Ctrl-b", "Left").Focused("shell-1").
		Press("Ctrl-b", "Right").Focused("shell-3").
		Press("Ctrl-b", "Up").Focused("shell-2").
		Press("Ctrl-b", "Left").Focused("shell-1").
		Press("Ctrl-b", "Right").Focused("shell-2").
		Press("Ctrl-b", "Down").Focused("shell-3").
		Press("Ctrl-b", "o").Focused("shell-1").
		Press("Ctrl-b", "o").Focused("shell-2").
		Press("Ctrl-b", "q", "2").Focused("shell-3")
	s.Press("Ctrl-b", "z").Contains("2 shell-3 [Z]").Lacks("shell-1")
	s.Press("Ctrl-b", "z").Contains("shell-1")
	// An idle pane is closed after asking too, as tmux's kill-pane asks.
	s.Press("Ctrl-b", "x").WaitFor("Close pane 2 (shell-3)? (y/n)")
	if ff.made[2].closed {
		t.Fatal("C-b x closed the pane before the answer")
	}
	s.Press("y").Lacks("shell-3").Focused("shell-2")
	if !ff.made[2].closed || len(leaves(d)) != 2 {
		t.Fatalf("close left %d panes:\n%s", len(leaves(d)), d.Text())
	}
	// shell-2 takes the whole right half again.
	if l := leaves(d)[1]; l.h != 38 {
		t.Fatalf("the remaining right pane is %d rows high, want the full 38", l.h)
	}
}

func TestResizeMovesTheBorder(t *testing.T) {
	d, _ := newTestDriver(t, 100, 30, "shell", "shell")
	s := d.Script(t)
	before := leaves(d)[0].w
	s.Press("Ctrl-b", "q", "0", "Ctrl-b", "L", "Ctrl-b", "L")
	if w := leaves(d)[0].w; w != before+4 {
		t.Fatalf("C-b L twice: width %d → %d, want +4", before, w)
	}
	s.Press("Ctrl-b", "Alt-Left")
	if w := leaves(d)[0].w; w != before+2 {
		t.Fatalf("C-b M-Left: width %d, want %d", w, before+2)
	}
}

func TestKeysReachThePaneAndPrefixTwiceSendsIt(t *testing.T) {
	d, ff := newTestDriver(t, 80, 24, "shell")
	s := d.Script(t)
	s.Press("x", "Ctrl-b", "Ctrl-b", "Up", "Ctrl-c")
	got := strings.Join(ff.made[0].keys, " ")
	if got != "x C-b ↑ C-c" {
		t.Fatalf("pane got %q", got)
	}
	s.Press("Ctrl-b", "F")
	if !strings.Contains(d.Text(), "no command on C-b F") {
		t.Fatalf("unknown prefix key not reported:\n%s", d.Text())
	}
}

func TestMouseClickFocuses(t *testing.T) {
	d, _ := newTestDriver(t, 80, 24, "shell", "shell")
	right := leaves(d)[1]
	d.Screen.InjectMouse(right.x+3, right.y+3, tcell.Button1, 0)
	d.Screen.InjectMouse(right.x+3, right.y+3, tcell.ButtonNone, 0)
	deadline := 0
	for focusedName(d) != "shell-2" && deadline < 100 {
		_ = d.Sync()
		deadline++
	}
	if got := focusedName(d); got != "shell-2" {
		t.Fatalf("click focused %q", got)
	}
}

func TestHelpIsGeneratedFromTheTables(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		d, _ := newTestDriver(t, size[0], size[1])
		s := d.Script(t)
		s.Press("Ctrl-b", "?")
		text := d.Text()
		for _, want := range []string{"kws help", "split-right", "C-p", "poke the agent"} {
			if !strings.Contains(text, want) {
				t.Errorf("help lacks %q:\n%s", want, text)
			}
		}
		golden(t, fmt.Sprintf("help_%dx%d", size[0], size[1]), text)
		var full string
		_ = d.Do(func() { full = d.App.helpText() })
		if !strings.Contains(full, "In the shell pane:") || !strings.Contains(full, "In copy mode:\n  q              quit             leave copy mode") {
			t.Errorf("the help does not list a pane's modes after its own keys:\n%s", full)
		}
		s.Press("q")
		if strings.Contains(d.Text(), "kws help") {
			t.Fatal("q did not close the help")
		}
	}
}

func TestPaletteRunsActionsByName(t *testing.T) {
	d, _ := newTestDriver(t, 100, 30, "shell")
	s := d.Script(t)
	s.Press("Ctrl-b", ":")
	s.Type("split-right")
	s.Press("Enter")
	if n := len(leaves(d)); n != 2 {
		t.Fatalf("palette split-right left %d panes", n)
	}
}

func TestQuitAsksWhileAnAgentWorks(t *testing.T) {
	d, ff := newTestDriver(t, 100, 30, "agent")
	s := d.Script(t)
	ff.setAgents(AgentStatus{Name: "agent-1", State: "thinking", Busy: true})
	s.Press("Ctrl-b", "Q")
	s.WaitFor("agent-1 is still working")
	if !strings.Contains(d.Text(), "◐ thinking") {
		t.Fatalf("status bar lacks the agent state:\n%s", d.Text())
	}
	d.Script(t).Press("Enter") // Cancel, focused
	if strings.Contains(d.Text(), "still working") || ff.made[0].closed {
		t.Fatal("Cancel quit anyway")
	}
	s.Press("Ctrl-b", "Q")
	_ = d.Press("y") // Quit: the application stops, so the driver reports it
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	if !ff.made[0].closed {
		t.Fatal("Quit did not close the panes")
	}
}

func TestBadBindingsAreReported(t *testing.T) {
	ff := &fakeFactory{}
	for _, b := range []map[string]string{
		{"nosuch.split": "x"}, {"prefix.nosuch": "x"}, {"prefix.zoom": "Ctrl-Ü"}, {"split": "x"},
	} {
		if _, err := New(Config{Panes: ff.registry(), Bindings: b, Screen: tcell.NewSimulationScreen("")}); err == nil {
			t.Errorf("%v accepted", b)
		}
	}
	d, err := NewDriver(Config{Panes: ff.registry(), Layout: []pane.Kind{pane.KindShell}, Bindings: map[string]string{"prefix.split-right": "|", "global.prefix": "Ctrl-a"}}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	s := d.Script(t)
	s.Press("Ctrl-a", "|")
	if n := len(leaves(d)); n != 2 {
		t.Fatalf("rebound prefix and split left %d panes", n)
	}
}

func TestResizeOfTheLastPaneMovesItsBorderTheKeysWay(t *testing.T) {
	d, _ := newTestDriver(t, 100, 30, "shell", "shell")
	s := d.Script(t)
	before := leaves(d)[1]
	s.Press("Ctrl-b", "q", "1", "Ctrl-b", "L")
	after := leaves(d)[1]
	if after.x != before.x+2 || after.w != before.w-2 {
		t.Fatalf("C-b L on the right pane: x %d→%d, w %d→%d; want the border 2 to the right", before.x, after.x, before.w, after.w)
	}
}

func TestDialogsKeepCtrlCAndClicksFromThePanes(t *testing.T) {
	d, ff := newTestDriver(t, 100, 30, "shell", "shell")
	s := d.Script(t)
	s.Press("Ctrl-b", ":")
	right := leaves(d)[1]
	d.Screen.InjectMouse(right.x+3, right.y+3, tcell.Button1, 0)
	d.Screen.InjectMouse(right.x+3, right.y+3, tcell.ButtonNone, 0)
	d.Script(t).Press("Ctrl-c") // in the palette
	if got := focusedName(d); got != "shell-1" {
		t.Fatalf("a click behind the palette focused %q", got)
	}
	s.Press("Esc", "Ctrl-c")
	if got := strings.Join(ff.made[0].keys, " "); got != "C-c" {
		t.Fatalf("after the palette the pane got %q", got)
	}
}

func TestArrowsWhileZoomedUnzoomAndMove(t *testing.T) {
	d, _ := newTestDriver(t, 100, 30, "shell", "shell")
	s := d.Script(t)
	s.Press("Ctrl-b", "q", "0", "Ctrl-b", "z", "Ctrl-b", "Right")
	if got := focusedName(d); got != "shell-2" || strings.Contains(d.Text(), "[Z]") {
		t.Fatalf("C-b → while zoomed: focus %q\n%s", got, d.Text())
	}
}

func TestSplitNeedsRoom(t *testing.T) {
	d, _ := newTestDriver(t, 40, 20, "shell")
	s := d.Script(t)
	for range 3 {
		s.Press("Ctrl-b", "%")
	}
	if n := len(leaves(d)); n != 2 {
		t.Fatalf("%d panes in 40 columns", n)
	}
	if !strings.Contains(d.Text(), "no space for a new pane") {
		t.Fatalf("refusal not shown:\n%s", d.Text())
	}
}

func TestRebindingThePrefixRenamesIt(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Panes: ff.registry(), Layout: []pane.Kind{pane.KindShell}, Bindings: map[string]string{"global.prefix": "Ctrl-a"}}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	s := d.Script(t)
	s.Press("Ctrl-a", "Ctrl-a", "Ctrl-b")
	if got := strings.Join(ff.made[0].keys, " "); got != "C-a C-b" {
		t.Fatalf("the pane got %q, want the prefix sent through and C-b as a plain key", got)
	}
	if text := d.Text(); !strings.Contains(text, "C-a ? help") || strings.Contains(text, "C-b") {
		t.Fatalf("the hints still name C-b:\n%s", text)
	}
}

func TestPanesWaitingForYouStandOutAndTheKeyJumpsToThem(t *testing.T) {
	d, ff := newTestDriver(t, 120, 30, "agent", "agent", "agent")
	s := d.Script(t)
	s.Do(func() { ff.made[2].waiting = true })
	ff.setAgents(AgentStatus{Name: "agent-3", State: "approval", Busy: true})
	s.Press("Ctrl-b", "q", "0")
	text := d.Text()
	if !strings.Contains(text, "2 ‼ agent-3") || !strings.Contains(text, "‼ agent-3 needs you (C-b N)") {
		t.Fatalf("the waiting pane does not stand out:\n%s", text)
	}
	s.Press("Ctrl-b", "N")
	if got := focusedName(d); got != "agent-3" {
		t.Fatalf("C-b N focused %q", got)
	}
	s.Do(func() { ff.made[2].waiting = false })
	s.Press("Ctrl-b", "N")
	if !strings.Contains(d.Text(), "no pane is waiting for you") {
		t.Fatalf("C-b N with nothing waiting:\n%s", d.Text())
	}
}

func TestSpawnOpensTiledAgentsWithTheTask(t *testing.T) {
	d, ff := newTestDriver(t, 160, 48, "agent")
	s := d.Script(t)
	s.Press("Ctrl-b", ":")
	s.Type(`spawn 3 "fix the flaky test"`)
	s.Press("Enter")
	ls := leaves(d)
	if len(ls) != 4 {
		t.Fatalf("%d panes after spawn 3", len(ls))
	}
	for _, p := range ff.made[1:] {
		if len(p.keys) != 1 || p.keys[0] != "task:fix the flaky test" {
			t.Fatalf("%s got %v", p.name, p.keys)
		}
	}
	// Tiled: every pane keeps a usable size.
	for _, l := range ls {
		if l.w < 40 || l.h < 12 {
			t.Fatalf("pane %dx%d is not tiled", l.w, l.h)
		}
	}
}

func TestNewAgentAsksForARoleAndATask(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Panes: ff.registry(), Layout: []pane.Kind{pane.KindShell}, Roles: []string{"coder", "tester"}}, 160, 48)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	s := d.Script(t)
	s.Press("Ctrl-b", "a")
	s.WaitFor("role (coder, tester) and task")
	s.Type("coder fix the login bug")
	s.Press("Enter")
	s.Press("Ctrl-b", ":")
	s.Type(`spawn 2 tester "cover the login flow"`)
	s.Press("Enter")
	var got []string
	_ = d.Do(func() {
		for _, p := range ff.made[1:] {
			got = append(got, p.spec.String()+" "+strings.Join(p.keys, ","))
		}
	})
	want := []string{"agent:coder task:fix the login bug", "agent:tester task:cover the login flow", "agent:tester task:cover the login flow"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("agents opened: %q\nwant %q", got, want)
	}
}

func TestClosingABusyPaneAsksFirst(t *testing.T) {
	d, ff := newTestDriver(t, 100, 30, "shell", "shell")
	s := d.Script(t)
	s.Do(func() { ff.made[1].waiting = true })
	s.Press("Ctrl-b", "q", "1", "Ctrl-b", "x")
	s.WaitFor("Close it anyway?").WaitFor("(y/n)")
	d.Script(t).Press("Enter") // Cancel, focused
	if ff.made[1].closed || len(leaves(d)) != 2 {
		t.Fatal("Cancel closed the pane")
	}
	d.Script(t).Press("Ctrl-b", "x", "y") // Close
	if !ff.made[1].closed || len(leaves(d)) != 1 {
		t.Fatal("Close did not close the busy pane")
	}
}

// TestKeyBoundToACommandLine: config.toml binds a prefix key to a command
// line, as tmux's bind-key does; the key runs it (here spawning two
// agents of a role with a task), the help lists it, and a binding naming
// no command is refused at start with the list of commands.
func TestKeyBoundToACommandLine(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Layout: []pane.Kind{pane.KindShell},
		Roles: []string{"tester"}, Bindings: map[string]string{"prefix.T": `spawn 2 tester "run the suite"`, "prefix.S": "select-layout tiled"}}, 160, 48)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	s := d.Script(t)
	s.Press("Ctrl-b", "T").Contains("agent:tester-1", "agent:tester-2")
	tasks := 0
	for _, p := range ff.made {
		for _, k := range p.keys {
			if k == "task:run the suite" {
				tasks++
			}
		}
	}
	if tasks != 2 {
		t.Fatalf("%d agents got the task, want 2", tasks)
	}
	s.Press("Ctrl-b", "?").Contains(`runs: spawn 2 tester "run the suite"`)

	_, err = NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Bindings: map[string]string{"prefix.T": "frobnicate now"}}, 80, 24)
	if err == nil || !strings.Contains(err.Error(), `no command "frobnicate"`) || !strings.Contains(err.Error(), "select-layout") {
		t.Fatalf("a key bound to no command: %v", err)
	}
}

// TestShowKeepsPanesReadable: C-b m opens the memory pane without leaving
// a pane too narrow to read, as splitting a half-width pane side by side
// did (two 38-column panes at 160×48; issue 26, item 12).
func TestShowKeepsPanesReadable(t *testing.T) {
	for _, size := range [][2]int{{160, 48}, {120, 40}, {240, 60}} {
		d, _ := newTestDriver(t, size[0], size[1])
		s := d.Script(t)
		before := len(leaves(d))
		s.Press("Ctrl-b", "m")
		after := leaves(d)
		if len(after) != before+1 {
			t.Fatalf("%v: C-b m left %d panes, want %d", size, len(after), before+1)
		}
		for _, l := range after {
			if l.w < min(readableCols, size[0]/2) {
				t.Errorf("%v: a pane is %d columns wide after C-b m:\n%s", size, l.w, d.Text())
			}
		}
	}
}
