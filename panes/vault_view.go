package panes

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/themes"
	"github.com/kwsdev/kws/vault"
)

// vaultView is the exact-block viewer inside the vault pane: the block's
// bytes as text, scrollable and searchable, masked while sensitive.
type vaultView struct {
	meta      vault.Meta
	data      []byte
	sensitive bool
	revealed  bool
	escaped   bool
	lines     []string // logical lines as shown: escaped, tabs expanded
	rows      []vaultRow
	width     int // width rows were wrapped to
	height    int // body rows of the last draw
	top       int
	query     string
	editing   bool
	matches   []vaultRow
	cur       int
	follow    bool // scroll the current match into view at the next draw
	// hint is the sidecar's summary of the block, shown above it.
	hint string
}

// vaultRow is a byte range [start, end) of one logical line: a wrapped
// screen row, or a search match.
type vaultRow struct{ line, start, end int }

func newVaultView(m vault.Meta, data []byte) *vaultView {
	v := &vaultView{meta: m, data: data, sensitive: m.Sensitive || diet.IsSensitive(string(data))}
	v.build()
	return v
}

// build turns the block into display lines, redacted unless revealed.
func (v *vaultView) build() {
	data := v.data
	if v.sensitive && !v.revealed {
		data = []byte(diet.Redact(string(data)))
	}
	var text string
	text, v.escaped = vaultExactText(data)
	v.lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range v.lines {
		v.lines[i] = expandTabs(l, 8)
	}
	v.width = 0
	v.search(v.query)
}

// vaultExactText returns data as displayable text. Valid UTF-8 without
// control characters (other than newline and tab) is returned as is;
// otherwise every backslash is doubled and every invalid byte or control
// character is written \xNN (\u00NN for C1 controls), so no escape
// sequence reaches the terminal and the bytes can still be read back
// exactly.
func vaultExactText(data []byte) (string, bool) {
	s := string(data)
	plain := utf8.Valid(data) && !strings.ContainsFunc(s, vaultControl)
	if plain {
		return s, false
	}
	var b strings.Builder
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, data[0])
		case r == '\\':
			b.WriteString(`\\`)
		case vaultControl(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case vaultControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.Write(data[:n])
		}
		data = data[n:]
	}
	return b.String(), true
}

func vaultControl(r rune) bool {
	return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0)
}

// expandTabs replaces tabs with spaces up to the next multiple of width
// columns.
func expandTabs(s string, width int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col += runewidth.RuneWidth(r)
	}
	return b.String()
}

// wrap splits the lines into screen rows of at most width columns.
func (v *vaultView) wrap(width int) {
	if width == v.width && v.rows != nil {
		return
	}
	v.width, v.rows = width, v.rows[:0]
	for i, l := range v.lines {
		start, col := 0, 0
		for off, r := range l {
			rw := runewidth.RuneWidth(r)
			if col+rw > width && off > start {
				v.rows = append(v.rows, vaultRow{i, start, off})
				start, col = off, 0
			}
			col += rw
		}
		v.rows = append(v.rows, vaultRow{i, start, len(l)})
	}
}

// search finds every match of q; a query without capitals ignores case.
func (v *vaultView) search(q string) {
	v.query, v.matches, v.cur = q, v.matches[:0], 0
	if q == "" {
		return
	}
	fold := strings.ToLower(q) == q
	for i, l := range v.lines {
		if fold {
			l = vaultASCIILower(l)
		}
		for off := 0; ; {
			j := strings.Index(l[off:], q)
			if j < 0 {
				break
			}
			v.matches = append(v.matches, vaultRow{i, off + j, off + j + len(q)})
			off += j + len(q)
		}
	}
	topLine := 0
	if v.top >= 0 && v.top < len(v.rows) {
		topLine = v.rows[v.top].line
	}
	for k, m := range v.matches {
		if m.line >= topLine {
			v.cur = k
			break
		}
	}
	v.follow = true
}

// vaultASCIILower lowers ASCII letters only, so byte offsets stay valid.
func vaultASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// step moves to the next (+1) or previous (-1) match, wrapping around.
func (v *vaultView) step(d int) {
	if n := len(v.matches); n > 0 {
		v.cur = ((v.cur+d)%n + n) % n
		v.follow = true
	}
}

// scroll moves the view by d rows; clamping happens when drawn.
func (v *vaultView) scroll(d int) { v.top += d }

func (v *vaultView) reveal() {
	v.revealed = !v.revealed
	v.build()
}

// draw paints the viewer into x, y, w, h: a header, the body and, while
// searching, a search line.
func (v *vaultView) draw(screen tcell.Screen, x, y, w, h int, th *themes.Theme) {
	base := th.Base.TCell()
	body := h - 1
	bodyY := y + 1
	if v.hint != "" && h > 3 {
		pane.Put(screen, x, y+1, w, "sidecar summary (a hint; the block below is exact): "+termsafe.OneLine(v.hint), th.ChatSystem.TCell())
		bodyY, body = y+2, body-1
	}
	if v.editing || v.query != "" {
		body--
		v.drawSearch(screen, x, y+h-1, w, base)
	}
	v.wrap(w)
	v.height = max(body, 1)
	if v.follow && len(v.matches) > 0 {
		v.top = v.rowOf(v.matches[v.cur]) - v.height/3
	}
	v.follow = false
	v.top = max(0, min(v.top, len(v.rows)-v.height))
	end := x + w
	if pos := fmt.Sprintf("%d-%d/%d", v.top+1, min(v.top+body, len(v.rows)), len(v.rows)); w > 2*len(pos) {
		end -= len(pos) + 1
		pane.Put(screen, end+1, y, len(pos), pos, base)
	}
	col := x
	for _, f := range []statsSpan{
		{v.meta.ID, th.VaultID.TCell()},
		{termsafe.OneLine(v.meta.Kind), th.VaultKind.TCell()},
		{vaultBytes(v.meta.Chars) + "  " + vaultTokens(v.meta) + " tok", th.VaultSize.TCell()},
		{v.flags(), th.VaultSensitive.TCell()},
	} {
		col += pane.Put(screen, col, y, end-col, f.text, f.st) + 2
	}
	if v.escaped {
		pane.Put(screen, col, y, end-col, `escaped: \xNN is a byte, \\ a backslash`, base)
	}
	for i := 0; i < body && v.top+i < len(v.rows); i++ {
		v.drawRow(screen, x, bodyY+i, w, v.rows[v.top+i], base, th.SearchMatch.TCell())
	}
}

// flags says whether the block is sensitive and masked.
func (v *vaultView) flags() string {
	switch {
	case v.sensitive && !v.revealed:
		return "sensitive: masked (r reveals)"
	case v.sensitive:
		return "sensitive: revealed (r masks)"
	}
	return ""
}

// drawRow draws one wrapped row with its search matches highlighted.
func (v *vaultView) drawRow(screen tcell.Screen, x, y, w int, r vaultRow, base, hit tcell.Style) {
	l, end := v.lines[r.line], x+w
	at := r.start
	for _, m := range v.matches {
		if m.line != r.line || m.end <= at || m.start >= r.end {
			continue
		}
		s := max(m.start, at)
		x += pane.Put(screen, x, y, end-x, l[at:s], base)
		at = min(m.end, r.end)
		x += pane.Put(screen, x, y, end-x, l[s:at], hit)
	}
	pane.Put(screen, x, y, end-x, l[at:r.end], base)
}

func (v *vaultView) drawSearch(screen tcell.Screen, x, y, w int, st tcell.Style) {
	if v.editing {
		n := pane.Put(screen, x, y, w, "/"+v.query, st)
		screen.ShowCursor(x+n, y)
		return
	}
	msg := fmt.Sprintf("/%s: no match (Esc clears)", v.query)
	if len(v.matches) > 0 {
		msg = fmt.Sprintf("/%s: match %d of %d (n next, N previous)", v.query, v.cur+1, len(v.matches))
	}
	pane.Put(screen, x, y, w, msg, st)
}

// rowOf returns the index of the wrapped row holding m's start.
func (v *vaultView) rowOf(m vaultRow) int {
	for i, r := range v.rows {
		if r.line == m.line && m.start < max(r.end, r.start+1) {
			return i
		}
	}
	return 0
}
