package tools

import (
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped elements hold no readable text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Iframe: true, atom.Object: true, atom.Canvas: true, atom.Head: true, atom.Button: true,
	atom.Select: true, atom.Input: true, atom.Textarea: true, atom.Form: true,
}

// blocks start and end on a line of their own.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Footer: true, atom.Nav: true, atom.Aside: true, atom.Ul: true, atom.Ol: true, atom.Li: true,
	atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Table: true, atom.Tr: true, atom.Blockquote: true,
	atom.Pre: true, atom.Figure: true, atom.Figcaption: true, atom.Hr: true, atom.Details: true,
	atom.Summary: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Body: true, atom.Html: true,
}

// headings map to their Markdown prefixes.
var headings = map[atom.Atom]string{
	atom.H1: "# ", atom.H2: "## ", atom.H3: "### ", atom.H4: "#### ", atom.H5: "##### ", atom.H6: "###### ",
}

// htmlText renders an HTML document as readable text: the title, then the
// body's text with one blank line between blocks, Markdown-style headings,
// list items and code blocks, and each link's target, resolved against
// base, after its text. Scripts, styles and forms are left out.
func htmlText(r io.Reader, base *url.URL) (string, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return "", err
	}
	w := &textWriter{base: base}
	if t := findTitle(doc); t != "" {
		w.text("Title: " + t)
		w.para()
	}
	w.node(doc)
	return strings.TrimSpace(w.b.String()) + "\n", nil
}

// findTitle returns the document's <title> text, white space collapsed.
func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}

// textWriter accumulates the text, tracking pending white space so that
// runs of it collapse and blocks are separated by exactly one blank line.
type textWriter struct {
	b     strings.Builder
	base  *url.URL
	pre   int  // depth of <pre> elements
	space bool // a space is due before the next text
	lines int  // newlines due before the next text (capped at 2)
	// marker is set right after a list item's "-": a block that opens
	// there stays on the marker's line.
	marker bool
	// items is the depth of list items: inside one, blocks end lines, not
	// paragraphs, and nested items are indented.
	items int
}

// text writes s, after the white space due.
func (w *textWriter) text(s string) {
	if s == "" {
		return
	}
	if w.b.Len() > 0 {
		switch {
		case w.lines > 0:
			w.b.WriteString(strings.Repeat("\n", w.lines))
		case w.space:
			w.b.WriteByte(' ')
		}
	}
	w.lines, w.space, w.marker = 0, false, false
	w.b.WriteString(s)
}

// line ends the current line.
func (w *textWriter) line() {
	if !w.marker {
		w.lines = max(w.lines, 1)
	}
}

// para ends the current paragraph; inside a list item, only the line.
func (w *textWriter) para() {
	switch {
	case w.marker:
	case w.items > 0:
		w.line()
	default:
		w.lines = 2
	}
}

// inline writes a text node's words, white space collapsed (kept inside
// <pre>).
func (w *textWriter) inline(s string) {
	if w.pre > 0 {
		for i, l := range strings.Split(s, "\n") {
			if i > 0 {
				w.b.WriteByte('\n')
			}
			if l != "" {
				w.text(l)
			}
		}
		return
	}
	if s != "" && isSpace(s[0]) {
		w.space = true
	}
	words := strings.Fields(s)
	for i, word := range words {
		if i > 0 {
			w.space = true
		}
		w.text(word)
	}
	if len(words) > 0 && isSpace(s[len(s)-1]) {
		w.space = true
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// node writes n and its children.
func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.inline(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	if skipped[n.DataAtom] {
		return
	}
	switch n.DataAtom {
	case atom.Br:
		w.line()
		return
	case atom.Hr:
		w.para()
		w.text("---")
		w.para()
		return
	case atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			w.text("[image: " + strings.Join(strings.Fields(alt), " ") + "]")
		}
		return
	case atom.A:
		w.children(n)
		if href := w.link(attr(n, "href")); href != "" {
			w.space = true
			w.text("(" + href + ")")
		}
		return
	case atom.Td, atom.Th:
		w.space = true
		w.children(n)
		w.text(" |")
		return
	case atom.Pre:
		w.para()
		w.text("```")
		w.line()
		w.pre++
		w.children(n)
		w.pre--
		w.line()
		w.text("```")
		w.para()
		return
	case atom.Li:
		w.line()
		w.text(strings.Repeat("  ", w.items) + "-")
		w.space, w.marker = true, true
		w.items++
		w.children(n)
		w.items--
		w.marker = false
		w.line()
		return
	}
	if prefix, ok := headings[n.DataAtom]; ok {
		w.para()
		w.text(strings.TrimSpace(prefix))
		w.space = true
		w.children(n)
		w.para()
		return
	}
	if blocks[n.DataAtom] {
		if n.DataAtom == atom.Tr || n.DataAtom == atom.Dt || n.DataAtom == atom.Dd {
			w.line()
		} else {
			w.para()
		}
		w.children(n)
		if n.DataAtom == atom.Tr || n.DataAtom == atom.Dt || n.DataAtom == atom.Dd {
			w.line()
		} else {
			w.para()
		}
		return
	}
	w.children(n)
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// link resolves href against the page's URL; fragments, javascript: and
// other non-web links give "".
func (w *textWriter) link(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if w.base != nil {
		u = w.base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto" {
		return ""
	}
	return u.String()
}

// attr returns n's attribute key, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
