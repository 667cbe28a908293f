package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// launcher drives tmux as agent launchers do: Claude Code's agent teams
// (a holding pane split off the leader, styled, titled, laid out, then
// respawned with the teammate's command) for three teammates, then
// claude-squad's session per agent, then a command kws lacks. It writes
// what tmux answered to $RESULTS.
const launcher = `#!/bin/bash
{
tmux -V
lead=$(tmux display-message -p '#{pane_id}')
echo "lead=$lead pane=$TMUX_PANE tmux=${TMUX:+set}"
win=$(tmux display-message -p '#{session_name}:#{window_index}')
prev=$lead
for name in researcher implementer tester; do
	id=$(tmux split-window -t "$prev" -h -l 70% -d -P -F '#{pane_id}' -- cat)
	tmux select-pane -t "$id" -P 'bg=default,fg=blue'
	tmux set-option -p -t "$id" pane-border-style 'fg=blue'
	tmux select-pane -t "$id" -T "$name"
	tmux set-option -w -t "$win" pane-border-status top
	tmux select-layout -t "$win" main-vertical
	tmux resize-pane -t "$lead" -x 30%
	tmux respawn-pane -k -t "$id" -- "echo $name; echo is up; exec sleep 600"
	echo "mate=$id"
	prev=$id
done
tmux list-panes -t "$win" -F 'pane #{pane_id} #{pane_title}'
tmux new-session -d -s squad-1 -c /tmp 'echo squad is up; exec sleep 600'
tmux has-session -t=squad-1 && echo has=yes
tmux kill-session -t squad-1
tmux has-session -t=squad-1 2>/dev/null || echo has=no
tmux pipe-pane -o cat
echo "pipe=$?"
} >"$RESULTS" 2>&1
echo LAUNCHER-DONE
`

// TestLaunchersOpenTeammatesInKwsPanes runs the launcher in a kws shell
// pane of a real server: the three teammates come up in kws panes, titled,
// each running its command; their ids are tmux's %N; the session's journal
// keeps them; claude-squad's session is a window it can find and end; and
// a tmux command kws lacks fails, naming it.
func TestLaunchersOpenTeammatesInKwsPanes(t *testing.T) {
	s := newSetup(t, "")
	results := filepath.Join(s.root, "results")
	s.env["RESULTS"] = results
	tm, _ := runInShellPane(t, s, "launcher.sh", launcher, func(sc string) bool {
		return strings.Contains(sc, "LAUNCHER-DONE")
	})
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	sc := tm.waitFor("the three teammates", func(sc string) bool {
		// main-vertical: the agent, then the launcher's shell, then the
		// teammates in the order they came.
		for i, name := range []string{"researcher", "implementer", "tester"} {
			rows, _ := box(sc, fmt.Sprintf("%d %s", i+2, name))
			if len(rows) < 2 || strings.TrimSpace(rows[0]) != name || strings.TrimSpace(rows[1]) != "is up" {
				return false
			}
		}
		return true
	})
	for _, want := range []string{
		"tmux 3.4 (kws)\n", "lead=%3 pane=%3 tmux=set\n", "mate=%5\n", "mate=%6\n", "mate=%7\n",
		"pane %3 ", "pane %5 researcher\n", "pane %6 implementer\n", "pane %7 tester\n",
		"has=yes\n", "has=no\n", "kws's tmux does not have this command: pipe-pane", "pipe=1\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the launcher's results lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(sc, "squad") {
		t.Errorf("claude-squad's window is still there:\n%s", sc)
	}
	journals, _ := filepath.Glob(filepath.Join(s.dirs["data"], "server", "sessions", "*.json"))
	var journal string
	for _, j := range journals {
		b, _ := os.ReadFile(j)
		journal += string(b)
	}
	for _, want := range []string{`"title":"researcher"`, `"id":7`} {
		if !strings.Contains(journal, want) {
			t.Errorf("the session's journal lacks %s: %s", want, journal)
		}
	}
}
