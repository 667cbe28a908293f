package themes

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// TestTitleCheckedOnItsFrame is the high-contrast skin's old focused
// title: black on yellow as a style, but tview draws only a title's
// foreground, over the frame's black, so it showed black on black.
func TestTitleCheckedOnItsFrame(t *testing.T) {
	th, err := Load("high-contrast")
	if err != nil {
		t.Fatal(err)
	}
	th.TitleFocused = Style{Fg: tcell.NewHexColor(0x000000), Bg: tcell.NewHexColor(0xffff00), Bold: true}
	if _, err := th.TitleFocused.Contrast(); err != nil {
		t.Fatal(err)
	}
	err = th.CheckContrast(ContrastAAA)
	want := `skin "high-contrast": title_focused on border_focused: contrast too low: 1.00:1 is below 7.0:1 (fg #000000 on bg #000000)`
	if !errors.Is(err, ErrLowContrast) || !strings.Contains(err.Error(), want) {
		t.Fatalf("CheckContrast = %v\nwant it to contain %q", err, want)
	}
}

// TestStylesDrawnOnOthers lists where a style's foreground meets another
// style's background, so that CheckContrast measures those pairs.
func TestStylesDrawnOnOthers(t *testing.T) {
	want := map[string][]string{
		"title":         {"border"},
		"title_focused": {"border_focused", "status_bar"},
		"stats_saved":   {"status_bar"},
	}
	for _, k := range StyleKeys() {
		if !slices.Equal(k.On, want[k.Name]) {
			t.Errorf("%s: On = %q, want %q", k.Name, k.On, want[k.Name])
		}
	}
}
