package themes

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// ErrBadColor is wrapped by every error about a colour value that is not
// a palette name, "#rrggbb", a colour name tcell knows, "colorN" or
// "default".
var ErrBadColor = errors.New("invalid colour")

// defaultColor is the spelling of the terminal's own colour.
const defaultColor = "default"

// ParseColor parses one colour value: "#rrggbb", a colour name tcell
// knows such as "red", "darkcyan" or "lightslategray", a 256-colour
// palette index "color0" to "color255", or "default" for the terminal's
// own colour (tcell.ColorDefault). Names are case-insensitive.
func ParseColor(s string) (tcell.Color, error) {
	return parseColor(s, nil)
}

// parseColor is ParseColor with an optional skin palette, whose names
// take precedence over tcell's.
func parseColor(s string, palette map[string]tcell.Color) (tcell.Color, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if c, ok := palette[v]; ok {
		return c, nil
	}
	switch {
	case v == "":
		return 0, fmt.Errorf("%w: empty value", ErrBadColor)
	case v == defaultColor:
		return tcell.ColorDefault, nil
	case v[0] == '#':
		return parseHex(s, v)
	case strings.HasPrefix(v, "color") && len(v) > len("color"):
		return parseIndex(s, v[len("color"):])
	}
	if c, ok := tcell.ColorNames[v]; ok {
		return c, nil
	}
	want := `"#rrggbb", a colour name such as red or darkcyan, color0 to color255, or default`
	candidates := slices.Collect(maps.Keys(tcell.ColorNames))
	if palette != nil {
		want = "a palette name, " + want
		candidates = append(candidates, slices.Collect(maps.Keys(palette))...)
	}
	return 0, fmt.Errorf("%w %q%s: want %s", ErrBadColor, s, suggest(v, candidates), want)
}

// parseHex parses "#rrggbb"; orig is the value as written, for errors.
func parseHex(orig, v string) (tcell.Color, error) {
	if len(v) != len("#rrggbb") {
		return 0, fmt.Errorf("%w %q: want #rrggbb with exactly six hex digits", ErrBadColor, orig)
	}
	n, err := strconv.ParseUint(v[1:], 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%w %q: %q is not hexadecimal, want #rrggbb", ErrBadColor, orig, v[1:])
	}
	return tcell.NewHexColor(int32(n)), nil
}

// parseIndex parses the number of a "colorN" name.
func parseIndex(orig, digits string) (tcell.Color, error) {
	if len(digits) > 3 || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Errorf("%w %q: want color0 to color255", ErrBadColor, orig)
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n > 255 {
		return 0, fmt.Errorf("%w %q: want color0 to color255", ErrBadColor, orig)
	}
	return tcell.PaletteColor(n), nil
}

// colorString spells a colour for messages: "#RRGGBB" for RGB colours,
// "colorN (#RRGGBB)" for terminal palette colours and "default" for the
// terminal's own colour.
func colorString(c tcell.Color) string {
	switch {
	case !c.Valid():
		return c.String()
	case c.IsRGB():
		return c.CSS()
	}
	return fmt.Sprintf("color%d (%s)", int(c-tcell.ColorValid), c.CSS())
}

// mix returns the colour half-way between a and b.
func mix(a, b tcell.Color) (tcell.Color, error) {
	ar, ag, ab := a.RGB()
	br, bg, bb := b.RGB()
	switch {
	case ar < 0:
		return 0, fmt.Errorf("%w: %s", ErrNoRGB, colorString(a))
	case br < 0:
		return 0, fmt.Errorf("%w: %s", ErrNoRGB, colorString(b))
	}
	return tcell.NewRGBColor((ar+br)/2, (ag+bg)/2, (ab+bb)/2), nil
}
