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
	if err := d.Press("Ctrl-b", ":"); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if err := d.Type(s.typed); err != nil {
			t.Fatal(err)
		}
		if err := d.Press("Tab"); err != nil {
			t.Fatal(err)
		}
		if got := paletteLine(d); got != s.line {
			t.Fatalf("after %q and Tab the palette reads %q, want %q\n%s", s.typed, got, s.line, d.Text())
		}
		for _, want := range s.shows {
			if !strings.Contains(d.Text(), want) {
				t.Errorf("after %q and Tab %q is not listed:\n%s", s.typed, want, d.Text())
			}
		}
	}
	// Nothing matches: the palette stays, with what was typed, and says so.
	if err := d.Type("zz"); err != nil {
		t.Fatal(err)
	}
	if err := d.Press("Tab", "Tab"); err != nil {
		t.Fatal(err)
	}
	if got := paletteLine(d); got != ": split-rightzz" || !strings.Contains(d.Text(), `no command begins "split-rightzz"`) {
		t.Fatalf("Tab with no completion: the palette reads %q\n%s", got, d.Text())
	}
	if err := d.Press("Esc"); err != nil {
		t.Fatal(err)
	}
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
		if err := d.Press("Ctrl-b", ":"); err != nil {
			t.Fatal(err)
		}
		if err := d.Type(c.typed); err != nil {
			t.Fatal(err)
		}
		if err := d.Press("Tab"); err != nil {
			t.Fatal(err)
		}
		if got := paletteLine(d); got != c.line {
			t.Fatalf("%q and Tab: the palette reads %q, want %q\n%s", c.typed, got, c.line, d.Text())
		}
		if err := d.Press("Esc"); err != nil {
			t.Fatal(err)
		}
	}
	// A completed command runs on Enter.
	if err := d.Press("Ctrl-b", ":"); err != nil {
		t.Fatal(err)
	}
	if err := d.Type("select-layout ev"); err != nil {
		t.Fatal(err)
	}
	if err := d.Press("Tab"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text(), "even-horizontal  even-vertical") {
		t.Fatalf("the two even layouts are not listed:\n%s", d.Text())
	}
	if err := d.Type("v"); err != nil {
		t.Fatal(err)
	}
	if err := d.Press("Tab", "Enter"); err != nil {
		t.Fatal(err)
	}
	checkPreset(t, EvenVertical, leaves(d), 120, 38)
	if got := paletteLine(d); got != "(no palette)" {
		t.Fatalf("the palette is still open after Enter: %q", got)
	}
	// An agent's pane by its name.
	if err := d.Press("Ctrl-b", "0", "Ctrl-b", ":"); err != nil {
		t.Fatal(err)
	}
	if err := d.Type("select-pane agent-1"); err != nil {
		t.Fatal(err)
	}
	if err := d.Press("Enter"); err != nil {
		t.Fatal(err)
	}
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
		if err := d.Press("Ctrl-b", ":", "Tab"); err != nil {
			t.Fatal(err)
		}
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
