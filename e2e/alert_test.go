package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestAnotherAgentCLIAsksForYou runs, in a shell pane of a real kws in a
// real terminal, a program that behaves like an agent CLI (Claude Code,
// Codex): it works, then sends a desktop notification (OSC 777) and waits
// at a y/n prompt. With the focus elsewhere, the shell pane's frame is
// marked ‼ with the notification, the status bar and kws ls list the
// pane, C-b N goes there, the mark clears, and the answer reaches the
// program (issue 26, item 8).
func TestAnotherAgentCLIAsksForYou(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	trigger := filepath.Join(s.root, "go-ahead")
	body := "#!/bin/sh\necho 'fake-agent: working'\n" +
		"while [ ! -e " + shq(trigger) + " ]; do sleep 0.05; done\n" +
		"printf '\\033]777;notify;fake-agent;approve rm -rf build?\\007'\n" +
		"printf 'Allow? (y/n) '; read answer; echo \"fake-agent: got $answer\"\n"
	tm, status := runInShellPane(t, s, "fake-agent", body, func(sc string) bool { return strings.Contains(sc, "fake-agent: working") })
	tm.keys("C-b", "q", "0")
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("the shell pane marked as waiting", func(sc string) bool {
		return strings.Contains(sc, "┌ 1 ‼ shell") && strings.Contains(sc, "approve rm -rf build?") &&
			strings.Contains(sc, "‼ pane 1 needs you") && strings.Contains(sc, "Allow? (y/n)")
	})
	if out := s.must("", "ls"); !strings.Contains(out, "‼ pane 1 (shell: ") || !strings.Contains(out, "approve rm -rf build?) asks for you") {
		t.Errorf("kws ls does not list the waiting pane:\n%s", out)
	}
	tm.keys("C-b", "N")
	tm.waitFor("the mark cleared in the focused pane", func(sc string) bool {
		return strings.Contains(sc, "┌ 1 shell") && !strings.Contains(sc, "‼")
	})
	tm.typeText("y")
	tm.keys("Enter")
	tm.waitFor("the answer in the program", func(sc string) bool { return strings.Contains(sc, "fake-agent: got y") })
	tm.endSession(status)
}

// TestAnotherAgentCLIsStateFromItsScreen: an agent CLI in a shell pane
// that says nothing but what it draws, as Claude Code does without its
// notifications: a spinner in the title while it works, a question with
// numbered choices when it needs the user. The pane's title says working;
// with the focus elsewhere the question marks it ‼, names it in the status
// bar and kws ls, and C-b N goes there; the end of the next working spell
// marks it done.
func TestAnotherAgentCLIsStateFromItsScreen(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	ask, finish := filepath.Join(s.root, "ask"), filepath.Join(s.root, "finish")
	body := "#!/bin/sh\nprintf '\\033]0;⠋ Fixing the test\\007'\necho 'fake-claude: reading main.go'\n" +
		"while [ ! -e " + shq(ask) + " ]; do sleep 0.05; done\n" +
		"printf '\\033]0;✳ fake-claude\\007'\nprintf ' Do you want to proceed?\\n ❯ 1. Yes\\n   2. No\\n'\n" +
		"read answer\nprintf '\\033[2J\\033[H\\033]0;⠙ Running the tests\\007'\necho \"fake-claude: got $answer\"\n" +
		"while [ ! -e " + shq(finish) + " ]; do sleep 0.05; done\n" +
		"printf '\\033]0;✳ fake-claude\\007'\necho 'fake-claude: all done'\nprintf '> '\nread next\n"
	tm, status := runInShellPane(t, s, "fake-claude", body, func(sc string) bool {
		return strings.Contains(sc, "┌ 1 shell: fake-claude · working")
	})
	tm.keys("C-b", "q", "0")
	if err := os.WriteFile(ask, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("the question marking the pane", func(sc string) bool {
		return strings.Contains(sc, "┌ 1 ‼ shell: fake-claude · Do you want to proceed?") && strings.Contains(sc, "‼ pane 1 needs you")
	})
	if out := s.must("", "ls"); !strings.Contains(out, "‼ pane 1 (shell: fake-claude · Do you want to proceed?) asks for you") {
		t.Errorf("kws ls does not list the waiting pane:\n%s", out)
	}
	tm.keys("C-b", "N")
	tm.waitFor("the mark cleared in the focused pane", func(sc string) bool {
		return strings.Contains(sc, "┌ 1 shell: fake-claude") && !strings.Contains(sc, "‼")
	})
	tm.typeText("1")
	tm.keys("Enter")
	tm.waitFor("the answer taken and work again", func(sc string) bool {
		return strings.Contains(sc, "fake-claude: got 1") && strings.Contains(sc, "┌ 1 shell: fake-claude · working")
	})
	tm.keys("C-b", "q", "0")
	if err := os.WriteFile(finish, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("the pane marked done", func(sc string) bool {
		return strings.Contains(sc, "┌ 1 ‼ shell: fake-claude · done") && strings.Contains(sc, "‼ pane 1 needs you")
	})
	tm.endSession(status)
}

// runInShellPane starts kws in a terminal and runs the script body, saved
// as the program name, in its shell pane (pane 1), which it leaves focused
// once working shows the program at work.
func runInShellPane(t *testing.T, s *setup, name, body string, working func(sc string) bool) (tm *term, status string) {
	t.Helper()
	cli := filepath.Join(s.root, name)
	if err := os.WriteFile(cli, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	script, status := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	tm = startTerm(t, s.root, s.tmuxConf(), script)
	tm.waitFor("the shell's prompt", func(sc string) bool { return strings.Contains(boxText(sc, "1 shell"), "$") })
	tm.keys("C-b", "q", "1")
	tm.typeText(shq(cli))
	tm.keys("Enter")
	tm.waitFor("the program at work", working)
	return tm, status
}
