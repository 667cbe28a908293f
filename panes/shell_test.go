package panes

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/pty"
)

// shellWaitTimeout bounds every wait for the shell.
const shellWaitTimeout = 15 * time.Second

// kept is one block a shell pane kept in the test's vault.
type kept struct{ kind, text string }

// shellHarness is a shell pane on /bin/sh with the prompt "$ ", a vault
// that records what it is given, and the notifications shown.
type shellHarness struct {
	p     *ShellPane
	kept  []kept
	notes []string
	// answers counts the redraws asked for as answers to typing.
	answers atomic.Int32
}

// newShellHarness starts the pane and waits for the first prompt.
func newShellHarness(t *testing.T) *shellHarness {
	t.Helper()
	return newShellHarnessWith(t, func(o pty.Options) pty.Options { return o })
}

// newShellHarnessWith is newShellHarness with the shell's options passed
// through with.
func newShellHarnessWith(t *testing.T, with func(pty.Options) pty.Options) *shellHarness {
	t.Helper()
	h := &shellHarness{}
	env := testEnv()
	env.Notify = func(msg string) { h.notes = append(h.notes, msg) }
	env.Answer = func(fn func()) { h.answers.Add(1); fn() }
	keep := func(kind string, text []byte) (string, error) {
		h.kept = append(h.kept, kept{kind, string(text)})
		return "ctx:0000000000a1", nil
	}
	opts := pty.Options{Shell: "/bin/sh", Env: []string{"PS1=$ ", "ENV=", "HISTFILE=/dev/null"}}
	p, err := NewShellPane(env, with(opts), keep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	h.p = p
	h.waitPrompt(t)
	return h
}

// wait waits until the session's screen text satisfies cond.
func (h *shellHarness) wait(t *testing.T, what string, cond func(text string) bool) {
	t.Helper()
	h.until(t, what, func() bool { return cond(h.p.sess.Text()) })
}

// waitPrompt waits until the last screen line is an empty prompt.
func (h *shellHarness) waitPrompt(t *testing.T) {
	t.Helper()
	h.wait(t, "a prompt", func(text string) bool { return strings.HasSuffix("\n"+text, "\n$") })
}

// waitForeground waits until the terminal's foreground job is the program
// comm itself, so everything the command line ran before it (an stty, say)
// has finished and input reaches comm. A mode the screen shows is not
// enough: it is set by an earlier command of the same line.
func (h *shellHarness) waitForeground(t *testing.T, comm string) {
	t.Helper()
	h.until(t, comm+" in the foreground", func() bool { return h.p.sess.JobName() == comm })
}

// press sends one key event through the pane's input handler.
func (h *shellHarness) press(k tcell.Key, r rune, mod tcell.ModMask) {
	h.p.InputHandler()(tcell.NewEventKey(k, r, mod), func(tview.Primitive) {})
}

// typeKeys types s key by key.
func (h *shellHarness) typeKeys(s string) {
	for _, r := range s {
		h.press(tcell.KeyRune, r, tcell.ModNone)
	}
}

// run types a command line, presses Enter and waits for its last line of
// output followed by the next prompt.
func (h *shellHarness) run(t *testing.T, line, last string) {
	t.Helper()
	h.typeKeys(line)
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.wait(t, "the output of "+line, func(text string) bool { return strings.HasSuffix(text, "\n"+last+"\n$") })
}

// shellRow returns the first screen row whose text starts with prefix.
func shellRow(t *testing.T, s tcell.SimulationScreen, prefix string) int {
	t.Helper()
	for y, line := range strings.Split(screenText(s), "\n") {
		if strings.HasPrefix(line, prefix) {
			return y
		}
	}
	t.Fatalf("no row starts with %q:\n%s", prefix, screenText(s))
	return 0
}

func TestShellEcho(t *testing.T) {
	h := newShellHarness(t)
	h.run(t, "echo hello", "hello")
	s := render(t, h.p, 80, 24)
	golden(t, "shell_echo", screenText(s))
	if got := h.p.Title(); got != "shell: sh" {
		t.Errorf("Title() = %q", got)
	}
	h.p.PasteHandler()("echo pasted", func(tview.Primitive) {})
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.wait(t, "the pasted command", func(text string) bool { return strings.Contains(text, "\npasted\n") })
}

// TestShellAnswersTyping: the output after a key the shell got (its echo)
// is redrawn as an answer, drawn at once however other panes pace the
// frames; the shell's own output before any typing is not.
func TestShellAnswersTyping(t *testing.T) {
	h := newShellHarness(t)
	if n := h.answers.Load(); n != 0 {
		t.Fatalf("%d answers before anything was typed", n)
	}
	h.typeKeys("x")
	h.wait(t, "the echo", func(text string) bool { return strings.HasSuffix(text, "$ x") })
	h.until(t, "an answer", func() bool { return h.answers.Load() > 0 })
}

func TestShellNoTagInjection(t *testing.T) {
	h := newShellHarness(t)
	h.run(t, `printf '\033[31mred\033[0m [red]tag[-]\n'`, "red [red]tag[-]")
	s := render(t, h.p, 80, 24)
	y := shellRow(t, s, "red [red]tag[-]")
	base := testEnv().Theme.Base
	if fg, _, _ := styleAt(s, 0, y).Decompose(); fg != tcell.PaletteColor(1) {
		t.Errorf("fg of %q = %v, want palette colour 1", "red", fg)
	}
	if fg, bg, _ := styleAt(s, 4, y).Decompose(); fg != base.Fg || bg != base.Bg {
		t.Errorf("style of the literal tag = %v on %v, want the theme's base", fg, bg)
	}
}

func TestShellKeys(t *testing.T) {
	cases := []struct {
		name string
		ev   *tcell.EventKey
		want string
	}{
		{"rune", tcell.NewEventKey(tcell.KeyRune, 'x', tcell.ModNone), "x"},
		{"unicode", tcell.NewEventKey(tcell.KeyRune, 'é', tcell.ModNone), "é"},
		{"alt rune", tcell.NewEventKey(tcell.KeyRune, 'x', tcell.ModAlt), "\x1bx"},
		{"ctrl-a", tcell.NewEventKey(tcell.KeyCtrlA, 0, tcell.ModCtrl), "\x01"},
		{"ctrl-z", tcell.NewEventKey(tcell.KeyCtrlZ, 0, tcell.ModCtrl), "\x1a"},
		{"ctrl-alt-c", tcell.NewEventKey(tcell.KeyCtrlC, 0, tcell.ModCtrl|tcell.ModAlt), "\x1b\x03"},
		{"raw ctrl-e", tcell.NewEventKey(tcell.KeyRune, 0x05, tcell.ModNone), "\x05"},
		{"ctrl-j", tcell.NewEventKey(tcell.KeyLF, 0, tcell.ModCtrl), "\n"},
		{"ctrl-space", tcell.NewEventKey(tcell.KeyCtrlSpace, 0, tcell.ModCtrl), "\x00"},
		{"ctrl-backslash", tcell.NewEventKey(tcell.KeyCtrlBackslash, 0, tcell.ModCtrl), "\x1c"},
		{"ctrl-]", tcell.NewEventKey(tcell.KeyCtrlRightSq, 0, tcell.ModCtrl), "\x1d"},
		{"ctrl-_", tcell.NewEventKey(tcell.KeyCtrlUnderscore, 0, tcell.ModCtrl), "\x1f"},
		{"raw ctrl-]", tcell.NewEventKey(tcell.KeyGS, 0, tcell.ModCtrl), "\x1d"},
		{"enter", tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone), "\r"},
		{"tab", tcell.NewEventKey(tcell.KeyTab, 0, tcell.ModNone), "\t"},
		{"backtab", tcell.NewEventKey(tcell.KeyBacktab, 0, tcell.ModNone), "\x1b[Z"},
		{"backspace", tcell.NewEventKey(tcell.KeyBackspace, 0, tcell.ModNone), "\x7f"},
		{"backspace2", tcell.NewEventKey(tcell.KeyBackspace2, 0, tcell.ModNone), "\x7f"},
		{"escape", tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone), "\x1b"},
		{"up", tcell.NewEventKey(tcell.KeyUp, 0, tcell.ModNone), "\x1b[A"},
		{"shift-up", tcell.NewEventKey(tcell.KeyUp, 0, tcell.ModShift), "\x1b[1;2A"},
		{"ctrl-left", tcell.NewEventKey(tcell.KeyLeft, 0, tcell.ModCtrl), "\x1b[1;5D"},
		{"alt-right", tcell.NewEventKey(tcell.KeyRight, 0, tcell.ModAlt), "\x1b[1;3C"},
		{"home", tcell.NewEventKey(tcell.KeyHome, 0, tcell.ModNone), "\x1b[H"},
		{"end", tcell.NewEventKey(tcell.KeyEnd, 0, tcell.ModNone), "\x1b[F"},
		{"pgup", tcell.NewEventKey(tcell.KeyPgUp, 0, tcell.ModNone), "\x1b[5~"},
		{"ctrl-pgdn", tcell.NewEventKey(tcell.KeyPgDn, 0, tcell.ModCtrl), "\x1b[6;5~"},
		{"insert", tcell.NewEventKey(tcell.KeyInsert, 0, tcell.ModNone), "\x1b[2~"},
		{"delete", tcell.NewEventKey(tcell.KeyDelete, 0, tcell.ModNone), "\x1b[3~"},
		{"f1", tcell.NewEventKey(tcell.KeyF1, 0, tcell.ModNone), "\x1bOP"},
		{"shift-f5", tcell.NewEventKey(tcell.KeyF5, 0, tcell.ModShift), "\x1b[15;2~"},
		{"f12", tcell.NewEventKey(tcell.KeyF12, 0, tcell.ModNone), "\x1b[24~"},
		{"f13", tcell.NewEventKey(tcell.KeyF13, 0, tcell.ModNone), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := ptyKey(tc.ev)
			var got []byte
			if ok {
				got = pty.EncodeKey(k, pty.InputModes{})
			}
			if !bytes.Equal(got, []byte(tc.want)) {
				t.Errorf("%v → %+v → %q, want %q", tc.ev.Name(), k, got, tc.want)
			}
		})
	}
}

func TestShellCopyMode(t *testing.T) {
	h := newShellHarness(t)
	render(t, h.p, 80, 24)
	h.run(t, "seq 1 300", "300")
	h.p.EnterCopyMode()
	if got := h.p.Keys().Scope; got != "copy" {
		t.Fatalf("Keys() in copy mode has scope %q", got)
	}
	if ts := h.p.KeyTables(); len(ts) != 2 || ts[0].Scope != "shell" || ts[1].Scope != "copy" {
		t.Fatalf("KeyTables() in copy mode: %v", ts)
	}
	h.typeKeys("?150")
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	s := render(t, h.p, 80, 24)
	golden(t, "shell_copy", screenText(s))
	th := testEnv().Theme
	cases := []struct {
		what string
		x    int
		want tcell.Style
	}{{"cursor", 0, th.CopyCursor.TCell()}, {"match", 1, th.SearchMatch.TCell()}, {"after the match", 3, cellStyle(pty.BlankCell, th.Base)}}
	for _, tc := range cases {
		if got := styleAt(s, tc.x, 0); got != tc.want {
			t.Errorf("%s: style %v, want %v", tc.what, got, tc.want)
		}
	}
	h.typeKeys("V")
	if s = render(t, h.p, 80, 24); styleAt(s, 1, 0) != th.Selection.TCell() {
		t.Errorf("the selected line is not drawn in the selection style")
	}
	h.typeKeys("y")
	if len(h.kept) != 1 || h.kept[0] != (kept{"shell:selection", "150"}) {
		t.Fatalf("kept %+v, want the line 150", h.kept)
	}
	if n := len(h.notes); n == 0 || !strings.Contains(h.notes[n-1], "ctx:0000000000a1") {
		t.Errorf("notes %q do not give the id", h.notes)
	}
	if h.p.copy != nil || h.p.Keys().Scope != "shell" {
		t.Error("y did not leave copy mode")
	}
}

func TestShellSendScreen(t *testing.T) {
	h := newShellHarness(t)
	h.run(t, "echo visible", "visible")
	h.p.SendToVault()
	if len(h.kept) != 1 || h.kept[0].kind != "shell:screen" || !strings.Contains(h.kept[0].text, "\nvisible\n") {
		t.Fatalf("kept %+v", h.kept)
	}
}

func TestShellResize(t *testing.T) {
	h := newShellHarness(t)
	for _, size := range [][2]int{{80, 24}, {60, 10}} {
		render(t, h.p, size[0], size[1])
		if cols, rows := h.p.sess.Size(); cols != size[0] || rows != size[1] {
			t.Errorf("drawn at %d×%d, session is %d×%d", size[0], size[1], cols, rows)
		}
	}
	h.run(t, "echo after", "after")
}

func TestShellExitAndRestart(t *testing.T) {
	h := newShellHarness(t)
	first := h.p.sess
	h.typeKeys("exit 3")
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	select {
	case <-first.Done():
	case <-time.After(shellWaitTimeout):
		t.Fatal("the shell did not exit")
	}
	s := render(t, h.p, 80, 24)
	if !strings.Contains(screenText(s), "[shell exited: status 3 — press Enter to restart") {
		t.Fatalf("no exit line:\n%s", screenText(s))
	}
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	if h.p.sess == first {
		t.Fatal("Enter did not restart the shell")
	}
	h.waitPrompt(t)
	h.run(t, "echo again", "again")
}

func TestShellGolden120x40(t *testing.T) {
	h := newShellHarness(t)
	h.run(t, "printf 'a\\tb\\n'", "a       b")
	golden(t, "shell_120x40", screenText(render(t, h.p, 120, 40)))
}

func TestShellCloseWarnsAboutARunningJob(t *testing.T) {
	h := newShellHarness(t)
	h.run(t, "echo idle", "idle")
	if w := h.p.CloseWarning(); w != "" {
		t.Fatalf("a shell at its prompt warns: %q", w)
	}
	h.typeKeys("sleep 30")
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	// The warning names the job, which sets no title of its own.
	h.until(t, "a warning naming sleep", func() bool { return strings.Contains(h.p.CloseWarning(), "(sleep)") })
}

// TestShellPassesKeysToItsProgram: a key goes to the program unseen (so
// the application draws no frame for it) unless the pane keeps it: in copy
// mode, after the shell exited, or bound to one of the pane's actions.
func TestShellPassesKeysToItsProgram(t *testing.T) {
	h := newShellHarness(t)
	key := tcell.NewEventKey(tcell.KeyRune, 'x', 0)
	if !h.p.PassesKey(key) {
		t.Fatal("a plain key is not passed to the program")
	}
	h.p.EnterCopyMode()
	if h.p.PassesKey(key) {
		t.Fatal("a key in copy mode is passed to the program")
	}
	h.p.leaveCopyMode()
	own := h.p.keys
	h.p.keys = keymap.New("shell", keymap.Bind("send-to-vault", "x", "keep", false, nil))
	if h.p.PassesKey(key) {
		t.Fatal("a key bound to the pane's action is passed to the program")
	}
	h.p.keys = own
	h.p.sess.Close()
	<-h.p.sess.Done()
	if h.p.PassesKey(key) {
		t.Fatal("a key after the shell exited is passed to the program")
	}
}
