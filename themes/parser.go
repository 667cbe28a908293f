package themes

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
	"gopkg.in/yaml.v3"
)

// styleAttrs are the keys a style mapping may hold.
var styleAttrs = []string{"fg", "bg", "bold", "italic", "underline", "reverse", "dim"}

// parser walks one skin's YAML tree and collects every problem it
// finds, so a user sees all mistakes of a file at once.
type parser struct {
	file string
	errs []*SkinError
	refs []keyedRef
}

// keyedRef is a colour value with the dotted key it was given under.
type keyedRef struct {
	key string
	ref *colorRef
}

// fail records a problem with node n at the dotted key.
func (p *parser) fail(n *yaml.Node, key, format string, args ...any) {
	p.failErr(n, key, fmt.Errorf(format, args...))
}

// failErr records err as a problem with node n at the dotted key.
func (p *parser) failErr(n *yaml.Node, key string, err error) {
	p.errs = append(p.errs, &SkinError{File: p.file, Line: n.Line, Key: key, Err: err})
}

// err returns the recorded problems in line order, joined, or nil.
func (p *parser) err() error {
	slices.SortStableFunc(p.errs, func(a, b *SkinError) int { return a.Line - b.Line })
	errs := make([]error, len(p.errs))
	for i, e := range p.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// entries yields the pairs of mapping m under the dotted key prefix,
// recording and skipping any key given twice.
func (p *parser) entries(m *yaml.Node, prefix string) func(yield func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		seen := map[string]bool{}
		for k, v := range pairs(m) {
			if seen[k.Value] {
				p.fail(k, prefix+k.Value, "key repeated")
				continue
			}
			seen[k.Value] = true
			if !yield(k, v) {
				return
			}
		}
	}
}

// checkRefs resolves every colour value against the palette, so a skin
// that extends nothing reports bad colours together with its other
// problems.
func (p *parser) checkRefs(palette map[string]tcell.Color) {
	for _, r := range p.refs {
		if _, err := parseColor(r.ref.value, palette); err != nil {
			p.errs = append(p.errs, &SkinError{File: p.file, Line: r.ref.line, Key: r.key, Err: err})
		}
	}
}

// scalar returns v's text, recording a problem at key if v is empty or
// not a single value.
func (p *parser) scalar(k, v *yaml.Node, key string) (string, bool) {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		if hexComment.MatchString(strings.TrimSpace(k.LineComment + v.LineComment)) {
			p.fail(k, key, "missing value: %s", quoteHint)
		} else {
			p.fail(k, key, "missing value")
		}
		return "", false
	case v.Kind != yaml.ScalarNode:
		p.fail(v, key, "want a single value, not a list or mapping")
		return "", false
	}
	return v.Value, true
}

// str parses a top-level string such as name or extends.
func (p *parser) str(k, v *yaml.Node, key string) string {
	s, _ := p.scalar(k, v, key)
	return strings.TrimSpace(s)
}

// mapping reports whether v is a mapping, treating an empty value as an
// empty mapping and recording a problem at key otherwise.
func (p *parser) mapping(v *yaml.Node, key string) bool {
	switch {
	case v.Kind == yaml.MappingNode:
		return true
	case v.Kind != yaml.ScalarNode || v.Tag != "!!null":
		p.fail(v, key, "want a mapping of names to values")
	}
	return false
}

// colors parses the palette; values are literal colours, not other
// palette names.
func (p *parser) colors(f *skinFile, v *yaml.Node) {
	if !p.mapping(v, "colors") {
		return
	}
	for k, cv := range p.entries(v, "colors.") {
		name := strings.ToLower(strings.TrimSpace(k.Value))
		key := "colors." + k.Value
		if name == defaultColor || name == "" {
			p.fail(k, key, "%q cannot be a palette name", k.Value)
			continue
		}
		if _, dup := f.colors[name]; dup {
			p.fail(k, key, "palette name repeated (names are case-insensitive)")
			continue
		}
		s, ok := p.scalar(k, cv, key)
		if !ok {
			continue
		}
		c, err := parseColor(s, nil)
		if err != nil {
			p.failErr(cv, key, err)
			continue
		}
		f.colors[name] = c
	}
}

// styles parses the styles mapping.
func (p *parser) styles(f *skinFile, v *yaml.Node) {
	if !p.mapping(v, "styles") {
		return
	}
	for k, sv := range p.entries(v, "styles.") {
		key := "styles." + k.Value
		if _, ok := styleIndex[k.Value]; !ok {
			if hint := suggest(k.Value, styleKeyNames()); hint != "" {
				p.fail(k, key, "unknown style%s", hint)
			} else {
				p.fail(k, key, "unknown style: want one of %s", strings.Join(styleKeyNames(), ", "))
			}
			continue
		}
		r := &rawStyle{}
		f.styles[k.Value] = r
		if !p.mapping(sv, key) {
			continue
		}
		for ak, av := range p.entries(sv, key+".") {
			p.attr(r, ak, av, key+"."+ak.Value)
		}
	}
}

// attr parses one attribute of a style into r.
func (p *parser) attr(r *rawStyle, k, v *yaml.Node, key string) {
	var flag **bool
	switch k.Value {
	case "fg", "bg":
		s, ok := p.scalar(k, v, key)
		if !ok {
			return
		}
		ref := &colorRef{value: s, file: p.file, line: v.Line}
		p.refs = append(p.refs, keyedRef{key: key, ref: ref})
		if k.Value == "fg" {
			r.fg = ref
		} else {
			r.bg = ref
		}
		return
	case "bold":
		flag = &r.bold
	case "italic":
		flag = &r.italic
	case "underline":
		flag = &r.underline
	case "reverse":
		flag = &r.reverse
	case "dim":
		flag = &r.dim
	default:
		p.fail(k, key, "unknown attribute%s: want one of %s",
			suggest(k.Value, styleAttrs), strings.Join(styleAttrs, ", "))
		return
	}
	s, ok := p.scalar(k, v, key)
	if !ok {
		return
	}
	var b bool
	if v.Tag != "!!bool" || v.Decode(&b) != nil {
		p.fail(v, key, "want true or false, got %q", s)
		return
	}
	*flag = &b
}
