package themes

import (
	"fmt"
	"reflect"
	"strings"
)

// StyleKey describes one style group of a Theme as skin files name it.
type StyleKey struct {
	// Name is the key under "styles:" in a skin, such as "border_focused".
	Name string
	// Field is the Theme field the key fills, such as "BorderFocused".
	Field string
	// Parent is the key this style inherits from; empty only for "base".
	Parent string
	// Text reports whether the style carries text. Text styles are held to
	// the text contrast thresholds; the others (borders, sparkline bars)
	// are graphics held to WCAG's 3:1 for non-text contrast.
	Text bool
	// On names the styles whose background the style's text is also drawn
	// over, its own background aside: a pane's title is drawn over its
	// frame (tview keeps the frame's background under a title), and the
	// focused title's colour also marks "kws" in the status bar. Contrast
	// is checked against each of them.
	On []string
}

// styleKey is a StyleKey with the index of its Theme field.
type styleKey struct {
	StyleKey
	index int
}

// styleKeys lists every style group in Theme field order, parents first.
var styleKeys = mustStyleKeys()

// styleIndex maps a skin key to its position in styleKeys.
var styleIndex = func() map[string]int {
	m := make(map[string]int, len(styleKeys))
	for i, k := range styleKeys {
		m[k.Name] = i
	}
	return m
}()

// mustStyleKeys panics if the Theme declaration is inconsistent; the
// package's tests load every built-in skin, so this cannot ship broken.
func mustStyleKeys() []styleKey {
	keys, err := buildStyleKeys(reflect.TypeFor[Theme]())
	if err != nil {
		panic(err)
	}
	return keys
}

// buildStyleKeys reads the skin, parent, graphic and on struct tags of a
// theme type and checks that every Style field has a unique skin key, that
// each parent is declared before its children and that every style named
// by an on tag exists.
func buildStyleKeys(t reflect.Type) ([]styleKey, error) {
	styleType := reflect.TypeFor[Style]()
	seen := map[string]bool{}
	var keys []styleKey
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type != styleType {
			continue
		}
		name := f.Tag.Get("skin")
		parent := f.Tag.Get("parent")
		switch {
		case name == "":
			return nil, fmt.Errorf("themes: field %s has no skin tag", f.Name)
		case seen[name]:
			return nil, fmt.Errorf("themes: field %s repeats skin key %q", f.Name, name)
		case len(keys) == 0 && parent != "":
			return nil, fmt.Errorf("themes: root style %s must not have a parent", f.Name)
		case len(keys) > 0 && parent == "":
			return nil, fmt.Errorf("themes: field %s has no parent tag; only the first style is the root", f.Name)
		case len(keys) > 0 && !seen[parent]:
			return nil, fmt.Errorf("themes: field %s: parent %q is not declared before it", f.Name, parent)
		}
		seen[name] = true
		var on []string
		if tag := f.Tag.Get("on"); tag != "" {
			on = strings.Split(tag, ",")
		}
		keys = append(keys, styleKey{
			StyleKey: StyleKey{Name: name, Field: f.Name, Parent: parent, Text: f.Tag.Get("graphic") != "true", On: on},
			index:    i,
		})
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("themes: %s has no Style fields", t)
	}
	for _, k := range keys {
		for _, on := range k.On {
			if !seen[on] {
				return nil, fmt.Errorf("themes: field %s: on %q names no style", k.Field, on)
			}
		}
	}
	return keys, nil
}

// StyleKeys returns every style group a skin can set, parents before
// their children, starting with "base".
func StyleKeys() []StyleKey {
	out := make([]StyleKey, len(styleKeys))
	for i, k := range styleKeys {
		out[i] = k.StyleKey
	}
	return out
}

// Lookup returns the style a skin key names, such as "diff_add", and
// false when no style group has that key.
func (t *Theme) Lookup(key string) (Style, bool) {
	i, ok := styleIndex[key]
	if !ok {
		return Style{}, false
	}
	return reflect.ValueOf(t).Elem().Field(styleKeys[i].index).Interface().(Style), true
}

// set stores s in the field of t that styleKeys[i] names.
func (t *Theme) set(i int, s Style) {
	reflect.ValueOf(t).Elem().Field(styleKeys[i].index).Set(reflect.ValueOf(s))
}

// suggest returns a "did you mean" hint naming the candidate closest to
// word, or "" when none is within a couple of typos.
func suggest(word string, candidates []string) string {
	best, bestDist := "", min(3, len(word)/3+1)+1
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// styleKeyNames returns every skin style key.
func styleKeyNames() []string {
	names := make([]string, len(styleKeys))
	for i, k := range styleKeys {
		names[i] = k.Name
	}
	return names
}
