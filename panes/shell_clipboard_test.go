package panes

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
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
	if got := p.env.Buffer.Text(); got != "alpha" || p.clip == nil || *p.clip != "alpha" {
		t.Fatalf("buffer %q, clipboard %v (notes %q)", got, p.clip, *notes)
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
