package themes

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestParseColor(t *testing.T) {
	cases := []struct {
		in      string
		want    tcell.Color
		wantErr string
	}{
		{in: "#1e1e2e", want: tcell.NewHexColor(0x1e1e2e)},
		{in: "#1E1E2E", want: tcell.NewHexColor(0x1e1e2e)},
		{in: " #ffffff ", want: tcell.NewHexColor(0xffffff)},
		{in: "red", want: tcell.ColorRed},
		{in: "Red", want: tcell.ColorRed},
		{in: "darkcyan", want: tcell.ColorDarkCyan},
		{in: "grey", want: tcell.ColorGray},
		{in: "color0", want: tcell.ColorBlack},
		{in: "color123", want: tcell.PaletteColor(123)},
		{in: "color255", want: tcell.PaletteColor(255)},
		{in: "default", want: tcell.ColorDefault},
		{in: "DEFAULT", want: tcell.ColorDefault},
		{in: "", wantErr: "empty value"},
		{in: "#12345", wantErr: `"#12345": want #rrggbb with exactly six hex digits`},
		{in: "#1234567", wantErr: "exactly six hex digits"},
		{in: "#12345g", wantErr: `"12345g" is not hexadecimal`},
		{in: "#-12345", wantErr: "is not hexadecimal"},
		{in: "color256", wantErr: "want color0 to color255"},
		{in: "color-1", wantErr: "want color0 to color255"},
		{in: "color1000", wantErr: "want color0 to color255"},
		{in: "colour", wantErr: `invalid colour "colour"`},
		{in: "darkcyna", wantErr: `did you mean "darkcyan"?`},
		{in: "cornflowrblue", wantErr: `did you mean "cornflowerblue"?`},
		{in: "zzzzzz", wantErr: "want \"#rrggbb\", a colour name"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseColor(tc.in)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrBadColor) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseColor(%q) error = %v, want ErrBadColor containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseColor(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseColorPalette(t *testing.T) {
	palette := map[string]tcell.Color{"accent": tcell.NewHexColor(0x89b4fa), "red": tcell.NewHexColor(0xf38ba8)}
	cases := []struct {
		in      string
		want    tcell.Color
		wantErr string
	}{
		{in: "accent", want: tcell.NewHexColor(0x89b4fa)},
		{in: "Accent", want: tcell.NewHexColor(0x89b4fa)},
		{in: "red", want: tcell.NewHexColor(0xf38ba8)},
		{in: "blue", want: tcell.ColorBlue},
		{in: "acent", wantErr: `did you mean "accent"?): want a palette name`},
	}
	for _, tc := range cases {
		got, err := parseColor(tc.in, palette)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseColor(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseColor(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestContrastRatio(t *testing.T) {
	cases := []struct {
		a, b    string
		want    float64
		wantErr bool
	}{
		{a: "#000000", b: "#ffffff", want: 21},
		{a: "#ffffff", b: "#000000", want: 21},
		{a: "#777777", b: "#777777", want: 1},
		{a: "black", b: "white", want: 21},
		{a: "red", b: "black", want: 5.252},
		{a: "yellow", b: "black", want: 19.556},
		{a: "color231", b: "color16", want: 21},
		{a: "#767676", b: "#ffffff", want: 4.542},
		{a: "#0969da", b: "#ffffff", want: 5.190},
		{a: "default", b: "black", wantErr: true},
		{a: "white", b: "default", wantErr: true},
	}
	for _, tc := range cases {
		a, _ := ParseColor(tc.a)
		b, _ := ParseColor(tc.b)
		got, err := ContrastRatio(a, b)
		if tc.wantErr {
			if !errors.Is(err, ErrNoRGB) {
				t.Errorf("ContrastRatio(%s, %s) error = %v, want ErrNoRGB", tc.a, tc.b, err)
			}
			continue
		}
		if err != nil || math.Abs(got-tc.want) > 0.005 {
			t.Errorf("ContrastRatio(%s, %s) = %.3f, %v; want %.3f", tc.a, tc.b, got, err, tc.want)
		}
	}
}

func TestStyleContrast(t *testing.T) {
	white, black := tcell.NewHexColor(0xffffff), tcell.NewHexColor(0x000000)
	cases := []struct {
		name  string
		style Style
		want  float64
	}{
		{"plain", Style{Fg: white, Bg: black}, 21},
		{"reverse keeps the ratio", Style{Fg: white, Bg: black, Reverse: true}, 21},
		{"dim mixes toward the background", Style{Fg: white, Bg: black, Dim: true}, 5.245},
		{"dim on light", Style{Fg: black, Bg: white, Dim: true}, 4.004},
	}
	for _, tc := range cases {
		got, err := tc.style.Contrast()
		if err != nil || math.Abs(got-tc.want) > 0.005 {
			t.Errorf("%s: Contrast() = %.3f, %v; want %.3f", tc.name, got, err, tc.want)
		}
	}
	if _, err := (Style{Fg: white, Dim: true}).Contrast(); !errors.Is(err, ErrNoRGB) {
		t.Errorf("dim on default background: error = %v, want ErrNoRGB", err)
	}
}

func TestStyleTCell(t *testing.T) {
	fg, bg := tcell.NewHexColor(0x112233), tcell.ColorYellow
	cases := []struct {
		name  string
		style Style
		attrs tcell.AttrMask
	}{
		{"none", Style{Fg: fg, Bg: bg}, tcell.AttrNone},
		{"bold", Style{Fg: fg, Bg: bg, Bold: true}, tcell.AttrBold},
		{"italic", Style{Fg: fg, Bg: bg, Italic: true}, tcell.AttrItalic},
		{"underline", Style{Fg: fg, Bg: bg, Underline: true}, tcell.AttrUnderline},
		{"reverse", Style{Fg: fg, Bg: bg, Reverse: true}, tcell.AttrReverse},
		{"dim", Style{Fg: fg, Bg: bg, Dim: true}, tcell.AttrDim},
		{"all", Style{Fg: fg, Bg: bg, Bold: true, Italic: true, Underline: true, Reverse: true, Dim: true},
			tcell.AttrBold | tcell.AttrItalic | tcell.AttrUnderline | tcell.AttrReverse | tcell.AttrDim},
	}
	for _, tc := range cases {
		gotFg, gotBg, gotAttrs := tc.style.TCell().Decompose()
		if gotFg != fg || gotBg != bg || gotAttrs != tc.attrs {
			t.Errorf("%s: TCell() = %v %v %v; want %v %v %v", tc.name, gotFg, gotBg, gotAttrs, fg, bg, tc.attrs)
		}
	}
}

func TestSuggest(t *testing.T) {
	candidates := []string{"border", "border_focused", "base", "title"}
	cases := []struct{ word, want string }{
		{"boder", ` (did you mean "border"?)`},
		{"border_focussed", ` (did you mean "border_focused"?)`},
		{"bse", ` (did you mean "base"?)`},
		{"titel", ` (did you mean "title"?)`},
		{"statusbar", ""},
		{"x", ""},
	}
	for _, tc := range cases {
		if got := suggest(tc.word, candidates); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
