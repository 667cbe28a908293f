package tmuxshim

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args []string
		want [][]string
	}{
		// Claude Code's agent teams, as its tmux backend sends them.
		{[]string{"display-message", "-p", "#{pane_id}"}, [][]string{{"display-message", "-t", "%3", "-p", "#{pane_id}"}}},
		{[]string{"split-window", "-t", "%3", "-h", "-l", "70%", "-P", "-F", "#{pane_id}"}, [][]string{{"split-window", "-t", "%3", "-h", "-l", "70%", "-P", "-F", "#{pane_id}"}}},
		{[]string{"splitw", "-d", "-h", "-P", "-F", "#{pane_id}", "--", "cat"}, [][]string{{"split-window", "-t", "%3", "-d", "-h", "-P", "-F", "#{pane_id}", "--", "cat"}}},
		{[]string{"list-panes", "-F", "#{pane_id}", "-t", "ws:0"}, [][]string{{"list-panes", "-F", "#{pane_id}", "-t", "ws:0"}}},
		{[]string{"setw", "-t", "ws:0", "pane-border-status", "top"}, [][]string{{"set-option", "-w", "-t", "ws:0", "pane-border-status", "top"}}},
		// Global flags, and commands chained with ";".
		{[]string{"-L", "default", "select-pane", "-T", "tester", ";", "selectl", "main-vertical"},
			[][]string{{"select-pane", "-t", "%3", "-T", "tester"}, {"select-layout", "-t", "%3", "main-vertical"}}},
		// claude-squad's sessions.
		{[]string{"has-session", "-t=squad-1"}, [][]string{{"has-session", "-t=squad-1"}}},
		{[]string{"new-session", "-d", "-s", "squad-1", "-c", "/w", "claude"}, [][]string{{"new-session", "-d", "-s", "squad-1", "-c", "/w", "claude"}}},
		{[]string{"kill-session", "-t=squad-1"}, [][]string{{"kill-window", "-t=squad-1"}}},
	} {
		p, err := Parse(c.args, "%3")
		if err != nil || p.Version || !reflect.DeepEqual(p.Commands, c.want) {
			t.Errorf("%q: %+v %v, want %q", c.args, p, err, c.want)
		}
	}
	if p, err := Parse([]string{"-V"}, ""); err != nil || !p.Version {
		t.Errorf("-V: %+v %v", p, err)
	}
	if p, err := Parse([]string{"send-keys", "hi", "Enter"}, ""); err != nil || !reflect.DeepEqual(p.Commands, [][]string{{"send-keys", "hi", "Enter"}}) {
		t.Errorf("outside a pane, no target is added: %+v %v", p, err)
	}
	for _, bad := range [][]string{{"pipe-pane", "-o", "cat"}, {"select-pane", ";", "swap-pane"}} {
		if _, err := Parse(bad, "%1"); !errors.Is(err, ErrUnknown) {
			t.Errorf("%q: %v, want ErrUnknown", bad, err)
		}
	}
	if _, err := Parse([]string{"-x", "ls"}, ""); err == nil {
		t.Error("an unknown global flag was taken")
	}
	if _, err := Parse(nil, ""); err == nil {
		t.Error("no command was taken")
	}
}
