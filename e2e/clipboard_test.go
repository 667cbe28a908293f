package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// copyMark is the position copy mode shows at the top right ("[3/3]").
var copyMark = regexp.MustCompile(`\[\d+/\d+\]`)

// TestClipboard copies a line in a shell pane's copy mode and checks the
// OSC 52 sequence really reaches the terminal kws runs in: tmux, told to
// take the clipboard from its panes (set-clipboard on), makes it a tmux
// buffer. Then C-b ] pastes the copied text back into the shell.
func TestClipboard(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	conf := filepath.Join(s.root, "tmux-clipboard.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\nset -g set-clipboard on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script, _ := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	tm := startTerm(t, s.root, conf, script)
	tm.waitFor("the first frame", func(sc string) bool {
		return strings.Contains(sc, "┌ 0 agent-1") && strings.Contains(sc, "┌ 1 shell")
	})
	tm.waitFor("the shell prompt", func(sc string) bool { return lastLine(rowsOf(sc, "1 shell")) == "$" })
	tm.keys("C-b", "q", "1")
	tm.typeText("echo copy-$((6*7))")
	tm.keys("Enter")
	tm.waitFor("copy-42 in the shell pane", func(sc string) bool {
		rows := rowsOf(sc, "1 shell")
		return contains(rows, "copy-42") && lastLine(rows) == "$"
	})

	// Copy mode starts on the prompt line; the line above is copy-42.
	tm.keys("C-b", "[")
	tm.waitFor("copy mode's position mark", func(sc string) bool { return copyMark.MatchString(strings.Join(rowsOf(sc, "1 shell"), "\n")) })
	tm.keys("k", "V", "y")
	tm.waitFor("the copy reported", func(sc string) bool { return strings.Contains(sc, "copied 1 line to the clipboard") })
	buffer := func() string { out, _ := tm.tmux("show-buffer"); return out }
	waitUntil(t, "tmux's buffer set by OSC 52", func() bool { return buffer() == "copy-42" },
		func() string { return "show-buffer: " + buffer() })

	tm.typeText("echo pasted ")
	tm.keys("C-b", "]")
	tm.waitFor("the pasted text on the command line", func(sc string) bool {
		return lastLine(rowsOf(sc, "1 shell")) == "$ echo pasted copy-42"
	})
	tm.keys("Enter")
	tm.waitFor("the pasted command's output", func(sc string) bool {
		rows := rowsOf(sc, "1 shell")
		return contains(rows, "pasted copy-42") && lastLine(rows) == "$"
	})
}

// TestProgramClipboard runs, under clipboard = "on" in the user's
// config.toml, a program in a shell pane that sets the clipboard itself
// with OSC 52, as vim's and nvim's yank do: the text reaches tmux's
// buffer through kws (tmux's set-clipboard on), and C-b ] pastes it from
// kws's own paste buffer.
func TestProgramClipboard(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	if err := os.MkdirAll(filepath.Join(s.dirs["config"], "kws"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dirs["config"], "kws", "config.toml"), []byte("clipboard = \"on\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(s.root, "tmux-clipboard.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\nset -g set-clipboard on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script, _ := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	tm := startTerm(t, s.root, conf, script)
	tm.waitFor("the shell prompt", func(sc string) bool { return lastLine(rowsOf(sc, "1 shell")) == "$" })
	tm.keys("C-b", "q", "1")
	tm.typeText(`printf '\033]52;c;%s\007' $(printf inner-osc52 | base64); echo sent`)
	tm.keys("Enter")
	tm.waitFor("the program done", func(sc string) bool {
		rows := rowsOf(sc, "1 shell")
		return contains(rows, "sent") && lastLine(rows) == "$"
	})
	buffer := func() string { out, _ := tm.tmux("show-buffer"); return out }
	waitUntil(t, "tmux's buffer set by the program's OSC 52", func() bool { return buffer() == "inner-osc52" },
		func() string { return "show-buffer: " + buffer() })

	tm.typeText("echo got ")
	tm.keys("C-b", "]")
	tm.waitFor("kws's paste buffer pasted", func(sc string) bool {
		return lastLine(rowsOf(sc, "1 shell")) == "$ echo got inner-osc52"
	})
}
