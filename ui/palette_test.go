package ui

import (
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
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Layout: []pane.Kind{pane.KindShell, pane.KindShell},
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
	if !strings.Contains(d.Text(), "select-layout even-horizontal") || !strings.Contains(d.Text(), "select-layout even-vertical") {
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
}
