package panes

import (
	"regexp"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/themes"
)

// markdown renders an answer's Markdown as agent pane rows w columns
// wide: headings bold without their #, list items with a bullet and a
// hanging indent, quotes behind a bar, **bold**, *italic* and `code`
// spans, and fenced code as a block (its language above it) that is never
// reflowed. Escape sequences are removed first, as wrapText removes them;
// vault ids stay selectable refs. What is not Markdown shows as written.
func markdown(text string, w int, th *themes.Theme) []line {
	text = termsafe.Strip(text)
	md := mdStyles{
		base: th.ChatAssistant.TCell(), code: th.ChatCode.TCell(),
		note: th.ChatSystem.TCell(), ref: th.ChatRef.TCell(),
	}
	var out []line
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.ReplaceAll(l, "\t", "    ")
		trimmed := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
				continue
			}
			out = append(out, md.codeRows(l, w)...)
			continue
		}
		if m := fenceOpen.FindStringSubmatch(trimmed); m != nil {
			fence = m[1]
			if lang := strings.TrimSpace(m[2]); lang != "" {
				out = append(out, line{{text: clip(lang, w), style: md.note}})
			}
			continue
		}
		switch {
		case heading.MatchString(trimmed):
			m := heading.FindStringSubmatch(trimmed)
			out = append(out, md.wrap(md.inline(m[2], md.base.Bold(true)), w, "", 0)...)
		case rule.MatchString(trimmed):
			out = append(out, line{{text: strings.Repeat("─", min(w, 40)), style: md.note}})
		case bullet.MatchString(l):
			m := bullet.FindStringSubmatch(l)
			lead := m[1] + "• "
			out = append(out, md.wrap(md.inline(m[3], md.base), w, lead, runewidth.StringWidth(lead))...)
		case numbered.MatchString(l):
			m := numbered.FindStringSubmatch(l)
			lead := m[1] + m[2] + " "
			out = append(out, md.wrap(md.inline(m[3], md.base), w, lead, runewidth.StringWidth(lead))...)
		case strings.HasPrefix(trimmed, ">"):
			quoted := strings.TrimPrefix(strings.TrimPrefix(trimmed, ">"), " ")
			out = append(out, md.wrap(md.inline(quoted, md.base.Italic(true)), w, "│ ", 2)...)
		default:
			ind := len(l) - len(trimmed)
			out = append(out, md.wrap(md.inline(trimmed, md.base), w, strings.Repeat(" ", ind), ind)...)
		}
	}
	return out
}

var (
	fenceOpen = regexp.MustCompile("^(```+|~~~+)\\s*([^`]*)$")
	heading   = regexp.MustCompile(`^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	rule      = regexp.MustCompile(`^([-*_])(\s*[-*_]){2,}\s*$`)
	bullet    = regexp.MustCompile(`^(\s*)([-*+])\s+(.*)$`)
	numbered  = regexp.MustCompile(`^(\s*)(\d{1,9}[.)])\s+(.*)$`)
)

// mdStyles are the styles markdown draws with.
type mdStyles struct {
	base, code, note, ref tcell.Style
}

// codeRows is one line of a fenced block: behind a bar, cut into rows
// (code is never reflowed at spaces).
func (md mdStyles) codeRows(l string, w int) []line {
	room := max(1, w-2)
	var out []line
	for {
		head := runewidth.Truncate(l, room, "")
		if head == "" && l != "" {
			head = string([]rune(l)[:1]) // a rune wider than the room
		}
		row := line{{text: "▎ ", style: md.note}}
		out = append(out, append(row, refSegs(head, md.code, md.ref)...))
		l = l[len(head):]
		if l == "" {
			return out
		}
	}
}

// inline splits a line into runs: `code`, **bold** or __bold__, *italic*
// or _italic_, each only where it is closed on the line; an _ inside a
// word (snake_case) or a * with a space inside it is text.
func (md mdStyles) inline(s string, st tcell.Style) []seg {
	var out []seg
	text := func(t string, style tcell.Style) {
		if t == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].style == style {
			out[n-1].text += t
			return
		}
		out = append(out, seg{text: t, style: style})
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '`':
			if end := strings.IndexByte(s[i+1:], '`'); end > 0 {
				text(s[i+1:i+1+end], md.code)
				i += end + 2
				continue
			}
		case (c == '*' || c == '_') && strings.HasPrefix(s[i:], strings.Repeat(string(c), 2)):
			delim := s[i : i+2]
			if end := strings.Index(s[i+2:], delim); end > 0 && opens(s, i, 2) && closes(s, i+2+end, 2) {
				for _, r := range md.inline(s[i+2:i+2+end], st.Bold(true)) {
					text(r.text, r.style)
				}
				i += end + 4
				continue
			}
		case c == '*' || c == '_':
			if end := strings.IndexByte(s[i+1:], c); end > 0 && opens(s, i, 1) && closes(s, i+1+end, 1) {
				for _, r := range md.inline(s[i+1:i+1+end], st.Italic(true)) {
					text(r.text, r.style)
				}
				i += end + 2
				continue
			}
		}
		text(s[i:i+1], st)
		i++
	}
	return out
}

// opens reports whether the n-byte delimiter at s[i:] can open emphasis:
// not inside a word, and followed by text rather than a space.
func opens(s string, i, n int) bool {
	if i > 0 && isWordByte(s[i-1]) {
		return false
	}
	return i+n < len(s) && s[i+n] != ' '
}

// closes reports whether the delimiter at s[i:i+n] can close emphasis:
// after text rather than a space, and not inside a word.
func closes(s string, i, n int) bool {
	if i == 0 || s[i-1] == ' ' {
		return false
	}
	return i+n >= len(s) || !isWordByte(s[i+n])
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// wrap lays runs out in rows of at most w columns, breaking at spaces
// (a word wider than a row is cut), the first row led by lead and the
// rest indented by ind columns; vault ids become ref segments.
func (md mdStyles) wrap(runs []seg, w int, lead string, ind int) []line {
	var out []line
	row, used := line{}, 0
	if lead != "" {
		row, used = line{{text: lead, style: md.base}}, runewidth.StringWidth(lead)
	}
	start := used // where a row's text begins
	flush := func() {
		out = append(out, md.refs(row))
		row, used = line{{text: strings.Repeat(" ", ind), style: md.base}}, ind
		start = ind
	}
	put := func(t string, st tcell.Style) {
		if n := len(row); n > 0 && row[n-1].style == st {
			row[n-1].text += t
		} else {
			row = append(row, seg{text: t, style: st})
		}
		used += runewidth.StringWidth(t)
	}
	for _, r := range runs {
		for _, word := range splitSpaces(r.text) {
			ww := runewidth.StringWidth(word)
			if word == " " {
				if used > start && used < w {
					put(" ", r.style)
				}
				continue
			}
			if used+ww > w && used > start {
				trimRow(&row, &used)
				flush()
			}
			for ww > w-used && w-used > 0 {
				head := runewidth.Truncate(word, w-used, "")
				if head == "" {
					break // a rune wider than the room: Put clips it
				}
				put(head, r.style)
				word = word[len(head):]
				ww = runewidth.StringWidth(word)
				if word == "" {
					break
				}
				flush()
			}
			if word != "" {
				put(word, r.style)
			}
		}
	}
	trimRow(&row, &used)
	return append(out, md.refs(row))
}

// splitSpaces cuts s into words and single spaces, in order.
func splitSpaces(s string) []string {
	var out []string
	for s != "" {
		if s[0] == ' ' {
			out = append(out, " ")
			s = s[1:]
			continue
		}
		end := strings.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// trimRow drops the spaces that end a row.
func trimRow(row *line, used *int) {
	for n := len(*row); n > 0; n = len(*row) {
		last := &(*row)[n-1]
		t := strings.TrimRight(last.text, " ")
		*used -= len(last.text) - len(t)
		if t != "" || n == 1 {
			last.text = t
			return
		}
		*row = (*row)[:n-1]
	}
}

// refs splits a row's segments at vault ids, which become ref segments.
func (md mdStyles) refs(row line) line {
	var out line
	for _, s := range row {
		out = append(out, refSegs(s.text, s.style, md.ref)...)
	}
	return out
}
