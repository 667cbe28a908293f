package themes

import (
	"errors"
	"fmt"
	"math"

	"github.com/gdamore/tcell/v2"
)

// WCAG 2 contrast thresholds for CheckContrast.
const (
	// ContrastAA is the WCAG AA minimum for normal text, 4.5:1.
	ContrastAA = 4.5
	// ContrastAAA is the WCAG AAA minimum for normal text, 7:1.
	ContrastAAA = 7.0
	// ContrastGraphic is the WCAG minimum for non-text graphics such as
	// borders and sparkline bars, 3:1.
	ContrastGraphic = 3.0
)

// ErrNoRGB is wrapped by contrast errors about a colour without a known
// RGB value, such as "default", whose look only the terminal knows.
var ErrNoRGB = errors.New("colour has no RGB value")

// ErrLowContrast is wrapped by CheckContrast's errors about a style
// whose foreground and background are too close.
var ErrLowContrast = errors.New("contrast too low")

// ContrastRatio returns the WCAG 2 contrast ratio of two colours, from 1
// (identical) to 21 (black on white). Terminal palette colours such as
// "red" or "color123" are measured by the RGB values tcell gives them.
func ContrastRatio(a, b tcell.Color) (float64, error) {
	la, err := luminance(a)
	if err != nil {
		return 0, err
	}
	lb, err := luminance(b)
	if err != nil {
		return 0, err
	}
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05), nil
}

// luminance is the WCAG 2 relative luminance of c.
func luminance(c tcell.Color) (float64, error) {
	r, g, b := c.RGB()
	if r < 0 {
		return 0, fmt.Errorf("%w: %s", ErrNoRGB, colorString(c))
	}
	return 0.2126*linear(r) + 0.7152*linear(g) + 0.0722*linear(b), nil
}

// linear converts an 8-bit sRGB channel to linear light.
func linear(v int32) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// Contrast returns the contrast ratio between the style's foreground
// and background. Reverse does not change it. A Dim style is measured
// with its foreground mixed half-way toward the background, the way
// terminals commonly render faint text.
func (s Style) Contrast() (float64, error) {
	fg := s.Fg
	if s.Dim {
		var err error
		if fg, err = mix(s.Fg, s.Bg); err != nil {
			return 0, err
		}
	}
	return ContrastRatio(fg, s.Bg)
}

// CheckContrast checks every style of the theme against each background
// it is drawn on: its own and those of the styles its key's On names
// (a title over its frame). Styles that carry text must reach minText
// (ContrastAA or ContrastAAA, say) and graphic styles the lesser of
// minText and ContrastGraphic. It returns nil when all pass, or one
// joined error naming the skin, each failing style (and the style it is
// drawn on), its ratio and its colours; a style using "default" colours
// fails with ErrNoRGB because its contrast depends on the terminal.
func (t *Theme) CheckContrast(minText float64) error {
	var errs []error
	for _, k := range styleKeys {
		s, _ := t.Lookup(k.Name)
		want := minText
		if !k.Text {
			want = min(minText, ContrastGraphic)
		}
		errs = append(errs, t.checkPair(k.Name, s, want))
		for _, on := range k.On {
			under, _ := t.Lookup(on)
			drawn := s
			drawn.Bg = under.Bg
			errs = append(errs, t.checkPair(k.Name+" on "+on, drawn, want))
		}
	}
	return errors.Join(errs...)
}

// checkPair checks that style s, named name in messages, reaches want.
func (t *Theme) checkPair(name string, s Style, want float64) error {
	ratio, err := s.Contrast()
	switch {
	case err != nil:
		return fmt.Errorf("skin %q: %s: %w", t.Name, name, err)
	case ratio < want:
		return fmt.Errorf("skin %q: %s: %w: %.2f:1 is below %.1f:1 (fg %s on bg %s)",
			t.Name, name, ErrLowContrast, ratio, want, colorString(s.Fg), colorString(s.Bg))
	}
	return nil
}
