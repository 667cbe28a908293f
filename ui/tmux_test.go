package ui

import (
	"strconv"
	"strings"
	"testing"
)

// TestTmuxVerbsAsLaunchersSendThem runs the command lines Claude Code's
// agent teams send through tmux (see internal/tmuxshim), with targets as
// tmux reads them: stable %ids, split-window printing the new pane, titles,
// layout and sizes, respawn-pane and kill-pane; then claude-squad's
// sessions, which are windows here.
func TestTmuxVerbsAsLaunchersSendThem(t *testing.T) {
	d, ff := newTestDriver(t, 160, 48)
	s := d.Script(t)
	exec := func(args ...string) string {
		t.Helper()
		var out string
		var err error
		s.Do(func() { out, err = d.App.Exec(args) })
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return out
	}
	fails := func(want string, args ...string) {
		t.Helper()
		var err error
		s.Do(func() { _, err = d.App.Exec(args) })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%q: %v, want an error saying %q", args, err, want)
		}
	}
	// The default layout opens the agent (%1), the vault (%2), the shell
	// (%3) and the stats (%4); the launcher runs in the shell.
	leader := strings.TrimSpace(exec("display-message", "-t", "1", "-p", "#{pane_id}"))
	if leader != "%3" {
		t.Fatalf("the shell's pane id: %q", leader)
	}
	if got := exec("display-message", "-t", leader, "-p", "#{session_name}:#{window_index}"); got != ":0\n" {
		t.Fatalf("the window target: %q", got)
	}
	var mates []string
	for i, args := range [][]string{
		{"split-window", "-t", leader, "-h", "-l", "70%", "-P", "-F", "#{pane_id}"},
		{"split-window", "-t", "%5", "-v", "-P", "-F", "#{pane_id}"},
		{"split-window", "-d", "-t", "%5", "-h", "-P", "-F", "#{pane_id}", "--", "cat"},
	} {
		id := strings.TrimSpace(exec(args...))
		if want := "%" + string(rune('5'+i)); id != want {
			t.Fatalf("%q printed %q, want %s", args, id, want)
		}
		mates = append(mates, id)
		exec("select-pane", "-t", id, "-P", "bg=default,fg=blue")
		exec("select-pane", "-t", id, "-T", []string{"researcher", "implementer", "tester\x1b[31m"}[i])
		exec("set-option", "-p", "-t", id, "pane-border-style", "fg=blue")
		exec("select-layout", "-t", ":0", "main-vertical")
		exec("resize-pane", "-t", leader, "-x", "30%")
	}
	s.Sync()
	// resize-pane -x 30% gave the leader's column 30% of the 160 columns
	// (its frame included).
	if w, err := strconv.Atoi(strings.TrimSpace(exec("display-message", "-t", leader, "-p", "#{pane_width}"))); err != nil || w < 44 || w > 48 {
		t.Fatalf("the leader is %d columns wide after resize-pane -x 30%% (%v)", w, err)
	}
	if p := ff.made[len(ff.made)-1]; p.spec.Command != "cat" || p.spec.ID != 7 {
		t.Fatalf("split-window -- cat built %+v", p.spec)
	}
	s.Focused("shell-3").Contains("researcher").Contains("implementer").Contains("tester")
	s.Lacks("\x1b[31m")
	got := exec("list-panes", "-t", leader, "-F", "#{pane_id} #{pane_title}")
	for _, want := range []string{"%3 shell-1\n", "%5 researcher\n", "%6 implementer\n", "%7 tester\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("list-panes -F lacks %q: %q", want, got)
		}
	}
	exec("send-keys", "-t", mates[1], "-l", "Enter")
	s.Do(func() {
		if keys := strings.Join(ff.made[len(ff.made)-2].keys, ""); keys != "Enter" {
			t.Errorf("send-keys -l typed %q", keys)
		}
	})
	fails("pane still active", "respawn-pane", "-t", mates[2], "claude")
	exec("respawn-pane", "-k", "-t", mates[2], "--", "claude --agent tester")
	s.Do(func() {
		p := ff.made[len(ff.made)-1]
		if p.spec.ID != 7 || p.spec.Command != "claude --agent tester" || p.spec.Title != "tester" {
			t.Errorf("respawn-pane built %+v", p.spec)
		}
		if !ff.made[len(ff.made)-2].closed {
			t.Error("respawn-pane left the old program running")
		}
	})
	for _, id := range mates {
		exec("kill-pane", "-t", id)
	}
	fails("can't find pane: %5", "kill-pane", "-t", "%5")
	if got := exec("list-panes", "-F", "#{pane_id}"); got != "%1\n%3\n%2\n%4\n" {
		t.Fatalf("after kill-pane: %q", got)
	}
	exec("select-pane", "-t", leader)
	s.Focused("shell-1")

	// claude-squad: a session of its own per instance, a window here.
	exec("new-session", "-d", "-s", "squad-1", "-c", "/w", "claude")
	s.Focused("shell-1")
	exec("has-session", "-t=squad-1")
	fails("duplicate session", "new-session", "-d", "-s", "squad-1")
	exec("send-keys", "-t", "squad-1", "hi", "Enter")
	exec("kill-window", "-t=squad-1")
	fails("can't find session: squad-2", "has-session", "-t", "squad-2")
	fails("set-option status-left: kws has no such option", "set-option", "status-left", "x")
}
