package themes

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// writeSkin writes body to dir/name.yaml and returns the path.
func writeSkin(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func hex(v int32) tcell.Color { return tcell.NewHexColor(v) }

func TestUserSkinOverridesBuiltin(t *testing.T) {
	dir := t.TempDir()
	writeSkin(t, dir, "dark", "styles:\n  base: {fg: \"#010203\", bg: black}\n")
	th, err := Load("dark", dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Style{Fg: hex(0x010203), Bg: tcell.ColorBlack}); th.Base != want || th.ChatAssistant != want {
		t.Errorf("Base = %+v, ChatAssistant = %+v; want the user's %+v", th.Base, th.ChatAssistant, want)
	}
	builtin, err := Load("dark")
	if err != nil || builtin.Base == th.Base {
		t.Errorf("Load without folders should return the built-in (%v)", err)
	}
	if th, err := Load("light", dir); err != nil || *th != *mustLoad(t, "light") {
		t.Errorf("a folder without light.yaml must not change light (%v)", err)
	}
}

func mustLoad(t *testing.T, name string, dirs ...string) *Theme {
	t.Helper()
	th, err := Load(name, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func TestPartialSkinInherits(t *testing.T) {
	dir := t.TempDir()
	writeSkin(t, dir, "mine", `
colors:
  ink: "#eeeeee"
  paper: "#101010"
  hot: "#ffcc00"
styles:
  base: {fg: ink, bg: paper}
  border: {fg: color244, bold: true}
  border_focused: {fg: hot}
  selection: {bg: "#333333", reverse: true}
  status_bar: {bg: black}
  hint_key: {fg: hot, italic: true}
  dialog_button: {bold: true}
  dialog_button_focused: {bold: false, underline: true}
`)
	th := mustLoad(t, "mine", dir)
	base := Style{Fg: hex(0xeeeeee), Bg: hex(0x101010)}
	sel := Style{Fg: base.Fg, Bg: hex(0x333333), Reverse: true}
	bar := Style{Fg: base.Fg, Bg: tcell.ColorBlack}
	cases := []struct {
		key  string
		want Style
	}{
		{"base", base},
		{"border", Style{Fg: tcell.PaletteColor(244), Bg: base.Bg, Bold: true}},
		{"border_focused", Style{Fg: hex(0xffcc00), Bg: base.Bg, Bold: true}},
		{"title", base},
		{"title_focused", base},
		{"selection", sel},
		{"copy_cursor", sel},
		{"chat_ref_selected", sel},
		{"status_bar", bar},
		{"status_agent_error", bar},
		{"hint_text", bar},
		{"hint_key", Style{Fg: hex(0xffcc00), Bg: tcell.ColorBlack, Italic: true}},
		{"dialog_button", Style{Fg: base.Fg, Bg: base.Bg, Bold: true}},
		{"dialog_button_focused", Style{Fg: base.Fg, Bg: base.Bg, Underline: true}},
		{"diff_add", base},
		{"stats_sparkline", base},
	}
	for _, tc := range cases {
		if got, _ := th.Lookup(tc.key); got != tc.want {
			t.Errorf("%s = %+v, want %+v", tc.key, got, tc.want)
		}
	}
}

func TestYAMLAnchors(t *testing.T) {
	dir := writeDir(t, "anchored", `
colors:
  ink: &ink "#fafafa"
styles:
  base: &plain {fg: *ink, bg: black}
  title: *plain
  title_focused: {fg: *ink, bold: true}
`)
	th := mustLoad(t, "anchored", dir)
	plain := Style{Fg: hex(0xfafafa), Bg: tcell.ColorBlack}
	if th.Base != plain || th.Title != plain || th.TitleFocused != (Style{Fg: plain.Fg, Bg: plain.Bg, Bold: true}) {
		t.Errorf("anchors: base %+v, title %+v, title_focused %+v", th.Base, th.Title, th.TitleFocused)
	}
}

func TestExtends(t *testing.T) {
	dark := mustLoad(t, "dark")
	dir, lower := t.TempDir(), t.TempDir()
	writeSkin(t, dir, "dark", "extends: dark\ncolors:\n  blue: \"#0000ff\"\nstyles:\n  chat_user: {italic: true}\n")
	writeSkin(t, dir, "warm", "extends: dark\nstyles:\n  border: {fg: orange}\n")
	writeSkin(t, lower, "dark", "styles:\n  base: {fg: white, bg: black}\n")

	th := mustLoad(t, "dark", dir)
	if th.BorderFocused.Fg != hex(0x0000ff) || th.BorderFocused.Bg != dark.BorderFocused.Bg || !th.BorderFocused.Bold {
		t.Errorf("palette override should recolour the built-in's blue styles: %+v", th.BorderFocused)
	}
	if want := dark.ChatUser; th.ChatUser.Fg != want.Fg || !th.ChatUser.Bold || !th.ChatUser.Italic {
		t.Errorf("chat_user = %+v, want the built-in's %+v plus italic", th.ChatUser, want)
	}
	if th.Base != dark.Base || th.DiffAdd != dark.DiffAdd {
		t.Error("styles the skin leaves alone must stay the built-in's")
	}

	warm := mustLoad(t, "warm", dir)
	if warm.Border.Fg != tcell.ColorOrange || warm.BorderFocused.Fg != hex(0x0000ff) {
		t.Errorf("warm extends the user's dark: border %+v, border_focused %+v", warm.Border, warm.BorderFocused)
	}

	stacked := mustLoad(t, "dark", dir, lower)
	if stacked.Base.Fg != tcell.ColorWhite || stacked.ChatUser.Fg != tcell.ColorWhite || !stacked.ChatUser.Italic {
		t.Errorf("dark extending dark should start from the next folder: base %+v, chat_user %+v", stacked.Base, stacked.ChatUser)
	}
}

func TestListUserDirs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeSkin(t, a, "zen", "")
	writeSkin(t, a, "dark", "")
	writeSkin(t, b, "amber", "")
	writeSkin(t, b, "zen", "")
	writeSkin(t, b, ".hidden", "")
	for _, p := range []string{filepath.Join(a, "notes.txt"), filepath.Join(a, "dir.yaml")} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	got := List(a, "", filepath.Join(a, "missing"), b)
	want := []string{"amber", "dark", "high-contrast", "light", "zen"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}

func TestUserDirOrder(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	writeSkin(t, first, "mine", "styles:\n  base: {fg: red}\n")
	writeSkin(t, second, "mine", "styles:\n  base: {fg: blue}\n")
	if th := mustLoad(t, "mine", first, second); th.Base.Fg != tcell.ColorRed {
		t.Errorf("the first folder must win, got %+v", th.Base)
	}
	if th := mustLoad(t, "mine", "", second); th.Base.Fg != tcell.ColorBlue {
		t.Errorf("empty folder names are skipped, got %+v", th.Base)
	}
	if th := mustLoad(t, "empty", writeDir(t, "empty", "# nothing yet\n")); th.Base != (Style{}) {
		t.Errorf("an empty skin is all terminal defaults, got %+v", th.Base)
	}
}

// writeDir makes a folder holding one skin.
func writeDir(t *testing.T, name, body string) string {
	dir := t.TempDir()
	writeSkin(t, dir, name, body)
	return dir
}

func TestUserDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CONFIG_HOME decides the folder on Linux only")
	}
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	t.Setenv("HOME", "/home/u")
	dir, err := UserDir()
	if err != nil || filepath.ToSlash(dir) != "/cfg/kws/skins" {
		t.Errorf("UserDir() = %q, %v", dir, err)
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "odd.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Load("odd", dir)
	if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "read skin") {
		t.Errorf("Load of a folder named odd.yaml: %v", err)
	}
}
