package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// paletteLine is the palette's input line as the screen shows it.
func paletteLine(d *Driver) string {
	for _, l := range strings.Split(d.Text(), "\n") {
		if l == ":" || strings.HasPrefix(l, ": ") {
			return strings.TrimRight(l, " ")
		}
	}
	return "(no palette)"
}

func TestPaletteTabListsAndCompletesAndNeverCloses(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Layout: []pane.Kind{pane.KindShell, pane.KindShell, pane.KindAgent},
		Roles: []string{"coder", "tester"}}, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	s := d.Script(t)
	steps := []struct {
		typed, line string
		shows       []string
	}{
		// Tab on nothing lists every command.
		{"", ":", []string{"split-right", "select-layout", "spawn", "next-layout", "zoom"}},
		// Several candidates: the text grows by what they share and they
		// are listed.
		{"spl", ": split-", []string{"split-down", "split-right"}},
		{"r", ": split-right", nil},
	}
	s.Press("Ctrl-b", ":")
	for _, st := range steps {
		s.Type(st.typed)
		s.Press("Tab")
		if got := paletteLine(d); got != st.line {
			t.Fatalf("after %q and Tab the palette reads %q, want %q\n%s", st.typed, got, st.line, d.Text())
		}
		for _, want := range st.shows {
			if !strings.Contains(d.Text(), want) {
				t.Errorf("after %q and Tab %q is not listed:\n%s", st.typed, want, d.Text())
			}
		}
	}
	// Nothing matches: the palette stays, with what was typed, and says so.
	s.Type("zz")
	s.Press("Tab", "Tab")
	if got := paletteLine(d); got != ": split-rightzz" || !strings.Contains(d.Text(), `no command begins "split-rightzz"`) {
		t.Fatalf("Tab with no completion: the palette reads %q\n%s", got, d.Text())
	}
	s.Press("Esc")
	if got := strings.Join(ff.made[0].keys, " "); got != "" {
		t.Fatalf("the pane got %q while the palette was open", got)
	}
	// Arguments: a layout, a pane kind, a role.
	for _, c := range []struct{ typed, line string }{
		{"select-l", ": select-layout"},
		{"select-layout ti", ": select-layout tiled"},
		{"show me", ": show memory"},
		{"spawn 2 te", ": spawn 2 tester"},
		{"select-pane ag", ": select-pane agent-1"},
	} {
		s.Press("Ctrl-b", ":")
		s.Type(c.typed)
		s.Press("Tab")
		if got := paletteLine(d); got != c.line {
			t.Fatalf("%q and Tab: the palette reads %q, want %q\n%s", c.typed, got, c.line, d.Text())
		}
		s.Press("Esc")
	}
	// A completed command runs on Enter.
	s.Press("Ctrl-b", ":")
	s.Type("select-layout ev")
	s.Press("Tab")
	if !strings.Contains(d.Text(), "even-horizontal  even-vertical") {
		t.Fatalf("the two even layouts are not listed:\n%s", d.Text())
	}
	s.Type("v")
	s.Press("Tab", "Enter")
	checkPreset(t, EvenVertical, leaves(d), 120, 38)
	if got := paletteLine(d); got != "(no palette)" {
		t.Fatalf("the palette is still open after Enter: %q", got)
	}
	// An agent's pane by its name.
	s.Press("Ctrl-b", "q", "0", "Ctrl-b", ":")
	s.Type("select-pane agent-1")
	s.Press("Enter")
	if got := focusedName(d); got != "agent-1" {
		t.Fatalf("select-pane agent-1 focused %q", got)
	}
}

// TestPaletteListsEveryCommandInColumns is Tab on an empty palette at
// 80x24 and 160x48: every command is listed in columns above the line,
// none hidden behind it.
func TestPaletteListsEveryCommandInColumns(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		d, _ := newTestDriver(t, size[0], size[1], "shell")
		s := d.Script(t)
		s.Press("Ctrl-b", ":", "Tab")
		text := d.Text()
		var cmds []string
		_ = d.Do(func() { cmds = d.App.commands() })
		for _, c := range cmds {
			if !strings.Contains(text, strings.TrimSpace(c)) {
				t.Errorf("%dx%d: %q is not listed:\n%s", size[0], size[1], c, text)
			}
		}
		golden(t, fmt.Sprintf("palette_tab_%dx%d", size[0], size[1]), text)
	}
}

func TestColumnsCountWhatDoesNotFit(t *testing.T) {
	cands := []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7"}
	if got, rows := columns(cands, 8, 10); got != "a1  a5\na2  a6\na3  a7\na4" || rows != 4 {
		t.Errorf("columns down then across: %d rows\n%s", rows, got)
	}
	if got, rows := columns(cands, 8, 3); got != "a1  a3\na2  a4\n… 3 more: type to narrow" || rows != 3 {
		t.Errorf("a list cut to 3 rows: %d rows\n%s", rows, got)
	}
}
