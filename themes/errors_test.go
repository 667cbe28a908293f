package themes

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name   string
		skin   string   // body of bad.yaml; empty means no file
		extra  []string // more files, as name, body pairs
		load   string   // name to load; "bad" when empty
		want   []string // substrings of the error, after the file path
		is     error
		noFile bool // the error need not name bad.yaml
	}{
		{name: "unknown style key", skin: "styles:\n  boder: {fg: red}\n",
			want: []string{"bad.yaml:2: styles.boder: unknown style", `did you mean "border"?`}, is: ErrInvalidSkin},
		{name: "unknown style key without a near match", skin: "styles:\n  zzzzzzzz: {}\n",
			want: []string{"bad.yaml:2: styles.zzzzzzzz: unknown style: want one of base, border, border_focused,"}, is: ErrInvalidSkin},
		{name: "unknown colour name", skin: "styles:\n  base:\n    fg: blurple\n",
			want: []string{"bad.yaml:3: styles.base.fg: invalid colour \"blurple\"", "want a palette name"}, is: ErrBadColor},
		{name: "palette typo", skin: "colors:\n  accent: \"#89b4fa\"\nstyles:\n  title: {fg: acent}\n",
			want: []string{"bad.yaml:4: styles.title.fg: invalid colour \"acent\"", `did you mean "accent"?`}, is: ErrBadColor},
		{name: "bad hex in style", skin: "styles:\n  base: {bg: \"#12345\"}\n",
			want: []string{"bad.yaml:2: styles.base.bg: invalid colour \"#12345\"", "six hex digits"}, is: ErrBadColor},
		{name: "bad hex in palette", skin: "colors:\n  bg: \"#gggggg\"\n",
			want: []string{"bad.yaml:2: colors.bg: invalid colour \"#gggggg\""}, is: ErrBadColor},
		{name: "palette refers to palette", skin: "colors:\n  a: red\n  b: a\n",
			want: []string{"bad.yaml:3: colors.b: invalid colour \"a\""}, is: ErrBadColor},
		{name: "unquoted hex in block style", skin: "styles:\n  base:\n    fg: #1e1e2e\n",
			want: []string{"bad.yaml:3: styles.base.fg: missing value", "quote it"}, is: ErrInvalidSkin},
		{name: "unquoted hex in flow style", skin: "styles:\n  base: {fg: #1e1e2e, bold: true}\n",
			want: []string{"bad.yaml: yaml: line", "quote it"}, is: ErrInvalidSkin},
		{name: "unquoted hex in palette", skin: "colors:\n  bg: #1e1e2e\n",
			want: []string{"bad.yaml:2: colors.bg: missing value", "quote it"}, is: ErrInvalidSkin},
		{name: "missing value", skin: "styles:\n  base: {fg: ~}\n",
			want: []string{"bad.yaml:2: styles.base.fg: missing value"}, is: ErrInvalidSkin},
		{name: "unknown attribute", skin: "styles:\n  base: {colour: red}\n",
			want: []string{"bad.yaml:2: styles.base.colour: unknown attribute", "want one of fg, bg, bold"}, is: ErrInvalidSkin},
		{name: "not a bool", skin: "styles:\n  base: {bold: yes}\n",
			want: []string{`bad.yaml:2: styles.base.bold: want true or false, got "yes"`}, is: ErrInvalidSkin},
		{name: "list as colour", skin: "styles:\n  base: {fg: [red]}\n",
			want: []string{"bad.yaml:2: styles.base.fg: want a single value"}, is: ErrInvalidSkin},
		{name: "style not a mapping", skin: "styles:\n  base: red\n",
			want: []string{"bad.yaml:2: styles.base: want a mapping"}, is: ErrInvalidSkin},
		{name: "styles not a mapping", skin: "styles: [base]\n",
			want: []string{"bad.yaml:1: styles: want a mapping"}, is: ErrInvalidSkin},
		{name: "unknown top-level key", skin: "color:\n  bg: red\n",
			want: []string{"bad.yaml:1: color: unknown key", `did you mean "colors"?`}, is: ErrInvalidSkin},
		{name: "top level not a mapping", skin: "- dark\n",
			want: []string{"bad.yaml:1: the top level must be a mapping"}, is: ErrInvalidSkin},
		{name: "reserved palette name", skin: "colors:\n  default: red\n",
			want: []string{`bad.yaml:2: colors.default: "default" cannot be a palette name`}, is: ErrInvalidSkin},
		{name: "repeated palette name", skin: "colors:\n  bg: red\n  BG: blue\n",
			want: []string{"bad.yaml:3: colors.BG: palette name repeated"}, is: ErrInvalidSkin},
		{name: "duplicate key", skin: "styles:\n  base: {fg: red}\n  base: {fg: blue}\n",
			want: []string{"bad.yaml:3: styles.base: key repeated"}, is: ErrInvalidSkin},
		{name: "name mismatch", skin: "name: dark\n",
			want: []string{`bad.yaml: name: "dark" does not match the file name "bad"`}, is: ErrInvalidSkin},
		{name: "every problem at once", skin: "styles:\n  base: {fg: nope}\n  title: {bg: \"#12\"}\n  boder: {}\n",
			want: []string{"styles.base.fg", "styles.title.bg", "styles.boder"}, is: ErrBadColor},
		{name: "extends missing", skin: "extends: nowhere\n",
			want: []string{"bad.yaml extends it: skin not found: no nowhere.yaml in"}, is: ErrNotFound},
		{name: "extends itself with nothing below", skin: "extends: bad\n",
			want: []string{"bad.yaml extends it: skin not found: no bad.yaml in built-ins"}, is: ErrNotFound},
		{name: "extends bad name", skin: "extends: ../dark\n",
			want: []string{`bad.yaml: extends: bad skin name "../dark"`}, is: ErrInvalidSkin},
		{name: "extends cycle", skin: "extends: other\n", extra: []string{"other", "extends: bad\n"},
			want: []string{"bad.yaml: extends: extends cycle:", "other.yaml ->"}, is: ErrInvalidSkin},
		{name: "error in extended skin names that file", skin: "extends: other\n",
			extra: []string{"other", "styles:\n  base: {fg: nope}\n"},
			want:  []string{"other.yaml:2: styles.base.fg: invalid colour \"nope\""}, is: ErrBadColor, noFile: true},
		{name: "not found", load: "missing",
			want: []string{`themes: load "missing": skin not found: no missing.yaml in`, "built-ins (available: bad"}, is: ErrNotFound, noFile: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSkin(t, dir, "bad", tc.skin)
			for i := 0; i+1 < len(tc.extra); i += 2 {
				writeSkin(t, dir, tc.extra[i], tc.extra[i+1])
			}
			name := "bad"
			if tc.load != "" {
				name = tc.load
			}
			th, err := Load(name, dir)
			if err == nil {
				t.Fatalf("Load(%q) = %+v, want an error", name, th)
			}
			msg := err.Error()
			if !errors.Is(err, tc.is) {
				t.Errorf("error %q does not match %v", msg, tc.is)
			}
			if !tc.noFile && !strings.Contains(msg, filepath.Join(dir, "bad.yaml")) {
				t.Errorf("error %q does not name the file", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestLoadBadNames(t *testing.T) {
	dir := t.TempDir()
	writeSkin(t, dir, ".hidden", "")
	for _, name := range []string{"", ".hidden", "..", "../etc/passwd", "a/b", `a\b`, "c:dark", "nul\x00"} {
		_, err := Load(name, dir)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "bad skin name") {
			t.Errorf("Load(%q) error = %v, want a bad skin name", name, err)
		}
	}
}

func TestSkinErrorFields(t *testing.T) {
	dir := t.TempDir()
	p := writeSkin(t, dir, "bad", "styles:\n  base:\n    bg: \"#zzzzzz\"\n")
	_, err := Load("bad", dir)
	var se *SkinError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *SkinError", err)
	}
	if se.File != p || se.Line != 3 || se.Key != "styles.base.bg" || !errors.Is(se, ErrBadColor) {
		t.Errorf("SkinError = %+v", se)
	}
}
