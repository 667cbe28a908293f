package ui

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitWordsAsAShellDoes(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
		err  string
	}{
		{`spawn 3 tester "run the suite"`, []string{"spawn", "3", "tester", "run the suite"}, ""},
		{`display-message -p '#{pane_id} "x"'`, []string{"display-message", "-p", `#{pane_id} "x"`}, ""},
		{`send-keys a\ b ""`, []string{"send-keys", "a b", ""}, ""},
		{`  rename-window   logs  `, []string{"rename-window", "logs"}, ""},
		{`spawn 2 "unclosed`, nil, `unclosed "`},
		{"   ", nil, "no command"},
	} {
		got, err := splitWords(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %q %v, want %q", tc.line, got, err, tc.want)
		}
	}
}

func TestCommandFlagsAsTmuxReadsThem(t *testing.T) {
	c := Command{Name: "x", Usage: "[-t N] [-hp] ARG", Flags: "t:hp"}
	for _, tc := range []struct {
		args  []string
		flags map[byte]string
		rest  []string
		err   string
	}{
		{[]string{"-t", "2", "a"}, map[byte]string{'t': "2"}, []string{"a"}, ""},
		{[]string{"-t2", "-hp", "a", "-h"}, map[byte]string{'t': "2", 'h': "", 'p': ""}, []string{"a", "-h"}, ""},
		{[]string{"--", "-h"}, map[byte]string{}, []string{"-h"}, ""},
		{[]string{"-z"}, nil, nil, "unknown flag -z (usage: x [-t N] [-hp] ARG)"},
		{[]string{"-t"}, nil, nil, "-t needs a value"},
	} {
		call, err := c.parse(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(call.Flags, tc.flags) || !reflect.DeepEqual(call.Args, tc.rest) {
			t.Errorf("%q: %v %q %v", tc.args, call.Flags, call.Args, err)
		}
	}
}

// TestExecRunsTheTableAndTheKeysActions: one table answers the kws
// command (Exec's output), the palette (Command) and the prefix keys'
// actions by name.
func TestExecRunsTheTableAndTheKeysActions(t *testing.T) {
	d, ff := newTestDriver(t, 120, 40)
	s := d.Script(t)
	exec := func(args ...string) (out string, err error) {
		s.Do(func() { out, err = d.App.Exec(args) })
		return out, err
	}
	if _, err := exec("new-window", "-n", "logs"); err != nil {
		t.Fatal(err)
	}
	out, err := exec("list-windows")
	if err != nil || out != "0: agent-1 (4 panes)\n1: logs* (1 panes) (active)\n" {
		t.Fatalf("list-windows: %q %v", out, err)
	}
	if _, err := exec("select-window", "-t", "0"); err != nil {
		t.Fatal(err)
	}
	out, _ = exec("list-panes")
	if !strings.Contains(out, "0: agent-1 [") || !strings.Contains(out, "(active)") || strings.Contains(out, "shell-2") {
		t.Fatalf("list-panes of window 0: %q", out)
	}
	out, _ = exec("list-panes", "-s")
	if !strings.Contains(out, "1.0: shell-2 [0x0] %5") {
		t.Fatalf("list-panes -s: %q", out)
	}
	if _, err := exec("next-window"); err != nil {
		t.Fatal(err)
	}
	s.Focused("shell-2")
	if _, err := exec("zoom", "now"); err == nil || err.Error() != "zoom takes no arguments" {
		t.Fatalf("an action given arguments: %v", err)
	}
	if _, err := exec("bogus"); err == nil || !strings.Contains(err.Error(), `no command "bogus"`) {
		t.Fatalf("an unknown command: %v", err)
	}
	if _, err := exec("split-window", "-x"); err == nil || !strings.Contains(err.Error(), "unknown flag -x") {
		t.Fatalf("an unknown flag: %v", err)
	}
	// The palette: quotes group, the output shows in a dialog.
	s.Do(func() { d.App.Command(`spawn 1 "fix the test"`) })
	if got := ff.made[len(ff.made)-1].keys; len(got) != 1 || got[0] != "task:fix the test" {
		t.Fatalf("spawn's task: %q", got)
	}
	s.Do(func() { d.App.Command("list-windows") }).WaitFor("list-windows (Esc closes)").Contains("1: logs* (2 panes)")
}
