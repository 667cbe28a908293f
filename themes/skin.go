package themes

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/gdamore/tcell/v2"
	"gopkg.in/yaml.v3"
)

// ErrInvalidSkin is matched (with errors.Is) by every SkinError.
var ErrInvalidSkin = errors.New("invalid skin")

// SkinError reports a problem in one skin file: malformed YAML, an
// unknown key, or a bad value. It matches ErrInvalidSkin, and Err may
// wrap ErrBadColor.
type SkinError struct {
	// File is the skin's path, or "<built-in>/name.yaml" for a built-in.
	File string
	// Line is the 1-based line of the offending value, or 0 if unknown.
	Line int
	// Key is the dotted key of the offending value, such as
	// "styles.border_focused.fg", or empty for whole-file problems.
	Key string
	// Err says what is wrong with the value.
	Err error
}

// Error formats the problem as "file:line: key: reason".
func (e *SkinError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	return b.String() + ": " + e.Err.Error()
}

// Unwrap returns the underlying reason.
func (e *SkinError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidSkin.
func (e *SkinError) Is(target error) bool { return target == ErrInvalidSkin }

// colorRef is a colour value as written in a skin, with where it was.
type colorRef struct {
	value string
	file  string
	line  int
}

// rawStyle is a style as written: nil fields are inherited.
type rawStyle struct {
	fg, bg                                *colorRef
	bold, italic, underline, reverse, dim *bool
}

// merge overwrites r's fields with the ones over sets.
func (r *rawStyle) merge(over *rawStyle) {
	for _, p := range []struct{ dst, src **colorRef }{{&r.fg, &over.fg}, {&r.bg, &over.bg}} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	for _, p := range []struct{ dst, src **bool }{
		{&r.bold, &over.bold}, {&r.italic, &over.italic}, {&r.underline, &over.underline},
		{&r.reverse, &over.reverse}, {&r.dim, &over.dim},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
}

// apply lays r over the inherited style s, resolving colours against
// the palette; key is r's dotted key for error messages.
func (r *rawStyle) apply(s Style, palette map[string]tcell.Color, key string) (Style, []error) {
	var errs []error
	for _, c := range []struct {
		ref  *colorRef
		dst  *tcell.Color
		attr string
	}{{r.fg, &s.Fg, "fg"}, {r.bg, &s.Bg, "bg"}} {
		if c.ref == nil {
			continue
		}
		col, err := parseColor(c.ref.value, palette)
		if err != nil {
			errs = append(errs, &SkinError{File: c.ref.file, Line: c.ref.line, Key: key + "." + c.attr, Err: err})
			continue
		}
		*c.dst = col
	}
	for _, b := range []struct{ src, dst *bool }{
		{r.bold, &s.Bold}, {r.italic, &s.Italic}, {r.underline, &s.Underline}, {r.reverse, &s.Reverse}, {r.dim, &s.Dim},
	} {
		if b.src != nil {
			*b.dst = *b.src
		}
	}
	return s, errs
}

// skinFile is one parsed skin file, or several merged through extends.
type skinFile struct {
	label   string
	name    string
	extends string
	colors  map[string]tcell.Color
	styles  map[string]*rawStyle
}

// overlay returns parent with child's palette entries and style
// attributes laid over it; neither input is modified.
func overlay(parent, child *skinFile) *skinFile {
	out := &skinFile{label: child.label, name: child.name, colors: map[string]tcell.Color{}, styles: map[string]*rawStyle{}}
	for _, f := range []*skinFile{parent, child} {
		for k, c := range f.colors {
			out.colors[k] = c
		}
		for k, s := range f.styles {
			if out.styles[k] == nil {
				out.styles[k] = &rawStyle{}
			}
			out.styles[k].merge(s)
		}
	}
	return out
}

// hexComment matches a comment that is really an unquoted hex colour.
var hexComment = regexp.MustCompile(`^#[0-9a-fA-F]{6}\b`)

// hexInLine finds an unquoted hex colour after a colon in raw YAML.
var hexInLine = regexp.MustCompile(`[:,{]\s*#[0-9a-fA-F]{6}\b`)

// quoteHint is added to errors caused by an unquoted hex colour.
const quoteHint = `an unquoted #rrggbb starts a YAML comment; quote it, as in fg: "#1e1e2e"`

// parseSkin parses the YAML text of one skin file named label.
func parseSkin(label string, data []byte) (*skinFile, error) {
	f := &skinFile{label: label, colors: map[string]tcell.Color{}, styles: map[string]*rawStyle{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		if hexInLine.Match(data) {
			err = fmt.Errorf("%w (%s)", err, quoteHint)
		}
		return nil, &SkinError{File: label, Err: err}
	}
	root := deref(&doc)
	if root == nil || root.Tag == "!!null" {
		return f, nil
	}
	p := &parser{file: label}
	if root.Kind != yaml.MappingNode {
		p.fail(root, "", "the top level must be a mapping of name, extends, colors and styles")
		return nil, p.err()
	}
	for k, v := range p.entries(root, "") {
		switch k.Value {
		case "name":
			f.name = p.str(k, v, "name")
		case "extends":
			f.extends = p.str(k, v, "extends")
		case "colors":
			p.colors(f, v)
		case "styles":
			p.styles(f, v)
		default:
			p.fail(k, k.Value, "unknown key%s: want name, extends, colors or styles",
				suggest(k.Value, []string{"name", "extends", "colors", "styles"}))
		}
	}
	if f.extends == "" {
		p.checkRefs(f.colors)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return f, nil
}

// deref follows document and alias nodes to the node they stand for.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) > 0:
			n = n.Content[0]
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		case n.Kind == 0 || n.Kind == yaml.DocumentNode:
			return nil
		default:
			return n
		}
	}
	return nil
}

// pairs yields the key and value nodes of a mapping node.
func pairs(m *yaml.Node) func(yield func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !yield(deref(m.Content[i]), deref(m.Content[i+1])) {
				return
			}
		}
	}
}
