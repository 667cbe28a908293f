package themes

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// builtins are the embedded skins and the contrast each must reach.
var builtins = []struct {
	name    string
	minText float64
}{
	{"dark", ContrastAA},
	{"light", ContrastAA},
	{"high-contrast", ContrastAAA},
}

// styleFields yields the name and value of every Style field of t.
func styleFields(t *Theme) map[string]Style {
	out := map[string]Style{}
	v := reflect.ValueOf(t).Elem()
	for i := range v.NumField() {
		if s, ok := v.Field(i).Interface().(Style); ok {
			out[v.Type().Field(i).Name] = s
		}
	}
	return out
}

func TestBuiltinsComplete(t *testing.T) {
	for _, b := range builtins {
		t.Run(b.name, func(t *testing.T) {
			th, err := Load(b.name)
			if err != nil {
				t.Fatalf("Load(%q): %v", b.name, err)
			}
			if th.Name != b.name {
				t.Errorf("Name = %q, want %q", th.Name, b.name)
			}
			fields := styleFields(th)
			if len(fields) != len(StyleKeys()) {
				t.Fatalf("%d Style fields, %d style keys", len(fields), len(StyleKeys()))
			}
			for field, s := range fields {
				if s == (Style{}) {
					t.Errorf("%s is the zero Style after inheritance", field)
				}
				if !s.Fg.IsRGB() || !s.Bg.IsRGB() {
					t.Errorf("%s: fg %s / bg %s: built-ins use exact RGB colours", field, colorString(s.Fg), colorString(s.Bg))
				}
			}
		})
	}
}

func TestBuiltinsContrast(t *testing.T) {
	for _, b := range builtins {
		t.Run(b.name, func(t *testing.T) {
			th, err := Load(b.name)
			if err != nil {
				t.Fatalf("Load(%q): %v", b.name, err)
			}
			if err := th.CheckContrast(b.minText); err != nil {
				t.Errorf("CheckContrast(%.1f):\n%v", b.minText, err)
			}
			for _, k := range StyleKeys() {
				s, _ := th.Lookup(k.Name)
				ratio, err := s.Contrast()
				want := b.minText
				if !k.Text {
					want = ContrastGraphic
				}
				if err != nil || ratio < want {
					t.Errorf("%s: contrast %.2f (%v), want >= %.1f", k.Name, ratio, err, want)
				}
			}
		})
	}
}

func TestCheckContrastReports(t *testing.T) {
	grey := tcell.NewHexColor(0x777777)
	th := Default()
	th.Name = "probe"
	th.ChatSystem = Style{Fg: grey, Bg: tcell.NewHexColor(0x666666)}
	th.Border = Style{Fg: grey, Bg: grey}
	th.VaultID = Style{Fg: tcell.ColorDefault, Bg: grey}
	err := th.CheckContrast(ContrastAA)
	if !errors.Is(err, ErrLowContrast) || !errors.Is(err, ErrNoRGB) {
		t.Fatalf("CheckContrast = %v, want ErrLowContrast and ErrNoRGB", err)
	}
	for _, want := range []string{
		`skin "probe": chat_system: contrast too low: 1.28:1 is below 4.5:1 (fg #777777 on bg #666666)`,
		`skin "probe": border: contrast too low: 1.00:1 is below 3.0:1`,
		`skin "probe": title on border: contrast too low: 2.01:1 is below 4.5:1 (fg #A6ADC8 on bg #777777)`,
		`skin "probe": vault_id: colour has no RGB value: default`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("CheckContrast error lacks %q:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 4 {
		t.Errorf("CheckContrast reported %d problems, want 4:\n%v", n, err)
	}
}

func TestDefault(t *testing.T) {
	a := Default()
	if a.Name != DefaultName {
		t.Fatalf("Default().Name = %q, want %q", a.Name, DefaultName)
	}
	dark, err := Load(DefaultName)
	if err != nil || *dark != *a {
		t.Fatalf("Default() differs from Load(%q) (%v)", DefaultName, err)
	}
	a.Base = Style{}
	if Default().Base == (Style{}) {
		t.Error("changing a Default() result changed the next one")
	}
}

func TestListBuiltins(t *testing.T) {
	want := []string{"dark", "high-contrast", "light"}
	if got := List(); !slices.Equal(got, want) {
		t.Errorf("List() = %v, want %v", got, want)
	}
}

func TestStyleKeys(t *testing.T) {
	keys := StyleKeys()
	if keys[0].Name != "base" || keys[0].Parent != "" {
		t.Fatalf("first key = %+v, want base without parent", keys[0])
	}
	pos := map[string]int{}
	th := Default()
	for i, k := range keys {
		pos[k.Name] = i
		if i > 0 {
			if p, ok := pos[k.Parent]; !ok || p >= i {
				t.Errorf("%s: parent %q not declared before it", k.Name, k.Parent)
			}
		}
		got, ok := th.Lookup(k.Name)
		want := reflect.ValueOf(th).Elem().FieldByName(k.Field).Interface()
		if !ok || got != want {
			t.Errorf("Lookup(%q) = %v, %v; want field %s = %v", k.Name, got, ok, k.Field, want)
		}
	}
	graphic := map[string]bool{"border": true, "border_focused": true, "stats_sparkline": true}
	for _, k := range keys {
		if k.Text == graphic[k.Name] {
			t.Errorf("%s: Text = %v", k.Name, k.Text)
		}
	}
	if _, ok := th.Lookup("nope"); ok {
		t.Error(`Lookup("nope") found a style`)
	}
}

func TestBuildStyleKeysRejects(t *testing.T) {
	cases := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"no tag", reflect.TypeFor[struct{ A Style }](), "has no skin tag"},
		{"repeated key", reflect.TypeFor[struct {
			A Style `skin:"a"`
			B Style `skin:"a" parent:"a"`
		}](), `repeats skin key "a"`},
		{"root with parent", reflect.TypeFor[struct {
			A Style `skin:"a" parent:"b"`
		}](), "must not have a parent"},
		{"parent declared later", reflect.TypeFor[struct {
			A Style `skin:"a"`
			B Style `skin:"b" parent:"c"`
			C Style `skin:"c" parent:"a"`
		}](), `parent "c" is not declared before it`},
		{"missing parent", reflect.TypeFor[struct {
			A Style `skin:"a"`
			B Style `skin:"b"`
		}](), "field B has no parent tag"},
		{"no styles", reflect.TypeFor[struct{ N string }](), "has no Style fields"},
		{"unknown on", reflect.TypeFor[struct {
			A Style `skin:"a"`
			B Style `skin:"b" parent:"a" on:"frame"`
		}](), `field B: on "frame" names no style`},
	}
	for _, tc := range cases {
		_, err := buildStyleKeys(tc.typ)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want %q", tc.name, err, tc.want)
		}
	}
}
