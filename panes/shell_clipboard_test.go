package panes

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
)

// TestShellCopyReachesBufferAndClipboard copies a selection: it lands in
// the paste buffer, the vault and, on the next frame, the clipboard of
// the terminal kws draws on, once.
func TestShellCopyReachesBufferAndClipboard(t *testing.T) {
	p, notes := newCopyPane([]string{"alpha", "beta", "gamma"}, 3)
	var kept []string
	p.keep = func(kind string, text []byte) (string, error) {
		kept = append(kept, kind, string(text))
		return "ctx:1", nil
	}
	pressKeys(p, "g j V j y")
	want := "beta\ngamma"
	if got := p.env.Buffer.Text(); got != want {
		t.Fatalf("paste buffer %q, want %q (notes %q)", got, want, *notes)
	}
	if len(kept) != 2 || kept[0] != "shell:selection" || kept[1] != want {
		t.Errorf("kept %q, want the selection", kept)
	}
	if p.copy != nil {
		t.Error("y stayed in copy mode")
	}
	if n := *notes; len(n) != 1 || !strings.Contains(n[0], "copied 2 lines to the clipboard and the paste buffer (C-b ] pastes it); kept ctx:1") {
		t.Errorf("notes %q", n)
	}
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	p.flushClipboard(s)
	if got := string(s.GetClipboardData()); got != want {
		t.Errorf("clipboard %q, want %q", got, want)
	}
	s.SetClipboard(nil)
	p.flushClipboard(s)
	if got := s.GetClipboardData(); len(got) != 0 {
		t.Errorf("the next frame set the clipboard again: %q", got)
	}
}

// TestShellCopyWithoutVault copies where no vault is open: the buffer
// and the clipboard still get the text.
func TestShellCopyWithoutVault(t *testing.T) {
	p, notes := newCopyPane([]string{"alpha"}, 3)
	pressKeys(p, "V y")
	if got, clip := p.env.Buffer.Text(), p.clip.Load(); got != "alpha" || clip == nil || *clip != "alpha" {
		t.Fatalf("buffer %q, clipboard %v (notes %q)", got, clip, *notes)
	}
	if n := *notes; len(n) != 1 || n[0] != "copied 1 line to the clipboard and the paste buffer (C-b ] pastes it)" {
		t.Errorf("notes %q", n)
	}
}

func TestOSC52(t *testing.T) {
	if got, want := osc52("héllo\n"), "\x1b]52;c;aMOpbGxvCg==\x1b\\"; got != want {
		t.Errorf("osc52 = %q, want %q", got, want)
	}
}

// TestShellPasteBuffer pastes the buffer into a shell, then into a
// program that enabled bracketed paste, which gets it bracketed.
func TestShellPasteBuffer(t *testing.T) {
	h := newShellHarness(t)
	h.p.PasteBuffer()
	if len(h.notes) != 1 || !strings.Contains(h.notes[0], "the paste buffer is empty") {
		t.Fatalf("notes %q, want the buffer is empty", h.notes)
	}
	h.p.env.Buffer.Set("echo pasted-$((6*7))")
	h.p.PasteBuffer()
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.wait(t, "the pasted command's output", func(text string) bool { return strings.HasSuffix(text, "\npasted-42\n$") })

	h.p.env.Buffer.Set("hi")
	h.typeKeys(`sh -c 'printf "\033[?2004h"; stty raw -echo; r=$(dd bs=1 count=14 2>/dev/null | tr "\033" E); stty sane; printf "\033[?2004l"; echo "got $r"'`)
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	h.until(t, "bracketed paste enabled", func() bool { return h.p.sess.Modes().BracketedPaste })
	h.p.PasteBuffer()
	h.wait(t, "the bracketed paste", func(text string) bool { return strings.Contains(text, "got E[200~hiE[201~\n$") })
}

// newClipboardHarness starts a shell pane whose workstation has
// clipboard = mode.
func newClipboardHarness(t *testing.T, mode string) *shellHarness {
	t.Helper()
	env := testEnv()
	env.Clipboard = mode
	h := &shellHarness{}
	env.Notify = func(msg string) { h.notes = append(h.notes, msg) }
	p, err := NewShellPane(env, pty.Options{Shell: "/bin/sh", Env: []string{"PS1=$ ", "ENV=", "HISTFILE=/dev/null"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	h.p = p
	h.waitPrompt(t)
	return h
}

// programOSC52 is the command: a program in the pane sets the
// clipboard with OSC 52, then says it is done.
// programOSC52 is a program's own OSC 52 setting the clipboard to
// inner-osc52 (its base64 computed here, so no base64 binary is needed).
var programOSC52 = `printf '\033]52;c;` + base64.StdEncoding.EncodeToString([]byte("inner-osc52")) + `\007'; echo done`

// TestProgramOSC52WithClipboardOn runs a program that sets the clipboard
// in a pane under clipboard = "on": the text becomes the paste buffer,
// and the next frame sends it to the system clipboard, as tmux's
// set-clipboard on does.
func TestProgramOSC52WithClipboardOn(t *testing.T) {
	h := newClipboardHarness(t, pane.ClipboardOn)
	h.run(t, programOSC52, "done")
	if got := h.p.env.Buffer.Text(); got != "inner-osc52" {
		t.Errorf("paste buffer %q, want inner-osc52", got)
	}
	s := render(t, h.p, 40, 6)
	if got := string(s.GetClipboardData()); got != "inner-osc52" {
		t.Errorf("clipboard %q, want inner-osc52", got)
	}
}

// TestProgramOSC52WithClipboardExternal runs the same program under the
// default: neither the paste buffer nor the clipboard changes, while copy
// mode's y still sets both.
func TestProgramOSC52WithClipboardExternal(t *testing.T) {
	h := newClipboardHarness(t, "")
	h.run(t, programOSC52, "done")
	if got := h.p.env.Buffer.Text(); got != "" {
		t.Errorf("paste buffer %q, want it untouched", got)
	}
	s := render(t, h.p, 40, 6)
	if got := s.GetClipboardData(); len(got) != 0 {
		t.Errorf("clipboard %q, want it untouched", got)
	}
	h.p.copyText("from copy mode")
	h.p.Draw(s)
	if got := string(s.GetClipboardData()); got != "from copy mode" || h.p.env.Buffer.Text() != "from copy mode" {
		t.Errorf("copy mode: clipboard %q, buffer %q", got, h.p.env.Buffer.Text())
	}
}

// TestCopyWithClipboardOff copies under clipboard = "off": the paste
// buffer gets the text, the clipboard does not, and the note says so.
func TestCopyWithClipboardOff(t *testing.T) {
	p, notes := newCopyPane([]string{"alpha"}, 3)
	p.env.Clipboard = pane.ClipboardOff
	pressKeys(p, "V y")
	if got, clip := p.env.Buffer.Text(), p.clip.Load(); got != "alpha" || clip != nil {
		t.Fatalf("buffer %q, clipboard %v", got, clip)
	}
	if n := *notes; len(n) != 1 || n[0] != "copied 1 line to the paste buffer (C-b ] pastes it)" {
		t.Errorf("notes %q", n)
	}
}
