package panes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/themes"
)

// StatsPane shows each agent's and the swarm's token figures: what the
// prompts would have cost sent whole (naive), what the diet sent, what it
// saved, how often the vault was used, what the provider reported, the
// figures per tool, and a sparkline per agent of naive against sent
// tokens per call.
type StatsPane struct {
	*tview.Box
	env    *pane.Env
	agents func() []swarm.Info
	infos  []swarm.Info
	keys   *keymap.Table
	top    int
	height int
}

// statsSpan is a piece of a line of the stats pane and its style.
type statsSpan struct {
	text string
	st   tcell.Style
}

// statsColumn is one figure of the table. Columns with a higher drop rank
// are hidden first when the pane is too narrow for all of them.
type statsColumn struct {
	head  string
	drop  int
	value func(swarm.Stats) string
	style func(*themes.Theme) themes.Style
}

func statsBase(th *themes.Theme) themes.Style { return th.Base }

func statsInt(f func(swarm.Stats) int) func(swarm.Stats) string {
	return func(s swarm.Stats) string { return statsHuman(f(s)) }
}

var statsColumns = []statsColumn{
	{"calls", 3, statsInt(func(s swarm.Stats) int { return s.Calls }), statsBase},
	{"naive", 0, statsInt(func(s swarm.Stats) int { return s.NaiveTokens }), func(th *themes.Theme) themes.Style { return th.StatsNaive }},
	{"sent", 1, statsInt(func(s swarm.Stats) int { return s.SentTokens }), func(th *themes.Theme) themes.Style { return th.StatsSent }},
	{"saved", 2, statsSaved, func(th *themes.Theme) themes.Style { return th.StatsSaved }},
	{"refs", 4, statsInt(func(s swarm.Stats) int { return s.Refs }), statsBase},
	{"seen", 9, statsInt(func(s swarm.Stats) int { return s.SeenRefs }), statsBase},
	{"faults", 5, statsInt(func(s swarm.Stats) int { return s.PageFaults }), statsBase},
	{"restores", 10, statsInt(func(s swarm.Stats) int { return s.AutoRestores }), statsBase},
	{"compact", 11, statsInt(func(s swarm.Stats) int { return s.Compactions }), statsBase},
	{"prompt", 6, statsInt(func(s swarm.Stats) int { return s.PromptTokens }), statsBase},
	{"compl", 8, statsInt(func(s swarm.Stats) int { return s.CompletionTokens }), statsBase},
	{"cached", 7, statsInt(func(s swarm.Stats) int { return s.CachedTokens }), statsBase},
}

// NewStatsPane returns a stats pane showing the figures agents returns.
func NewStatsPane(env *pane.Env, agents func() []swarm.Info) *StatsPane {
	p := &StatsPane{Box: tview.NewBox(), env: env, agents: agents}
	p.keys = env.KeyTable("stats", statsActions(p)...)
	p.Refresh()
	return p
}

// statsActions are the stats pane's keys, run on p.
func statsActions(p *StatsPane) []keymap.Action {
	return []keymap.Action{
		keymap.Bind("down", "j Down", "scroll down", false, func() { p.top++ }),
		keymap.Bind("up", "k Up", "scroll up", false, func() { p.top-- }),
		keymap.Bind("page-down", "PgDn Ctrl-d", "page down", false, func() { p.top += max(p.height-1, 1) }),
		keymap.Bind("page-up", "PgUp Ctrl-u", "page up", false, func() { p.top -= max(p.height-1, 1) }),
		keymap.Bind("top", "g Home", "top", false, func() { p.top = 0 }),
		keymap.Bind("bottom", "G End", "bottom", false, func() { p.top = 1 << 30 }),
		keymap.Bind("refresh", "R Ctrl-r", "refresh", true, p.Refresh),
	}
}

// StatsInfo describes the stats pane.
var StatsInfo = pane.Info{Kind: pane.KindStats, Scopes: []string{"stats"}, Key: "t", Action: "stats", Help: "show the stats pane",
	Keys: func() []*keymap.Table { return []*keymap.Table{keymap.New("stats", statsActions(nil)...)} }}

// Kind returns "stats".
func (p *StatsPane) Kind() pane.Kind { return pane.KindStats }

// Title returns "stats".
func (p *StatsPane) Title() string { return "stats" }

// Keys returns the pane's key-action table (scope "stats").
func (p *StatsPane) Keys() *keymap.Table { return p.keys }

// Close releases nothing: the figures belong to the swarm.
func (p *StatsPane) Close() error { return nil }

// Refresh reads the agents' figures again; the application calls it, on
// the UI goroutine, when an agent reports new figures.
func (p *StatsPane) Refresh() { p.infos = p.agents() }

// InputHandler runs the key-action table.
func (p *StatsPane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		p.keys.Handle(ev)
	})
}

// Draw paints the table and the sparklines, scrolled to the current line.
func (p *StatsPane) Draw(screen tcell.Screen) {
	x, y, w, h, ok := drawBackground(screen, p.Box, p.env.Theme)
	if !ok {
		return
	}
	lines := p.lines(w)
	p.height = h
	p.top = max(0, min(p.top, len(lines)-h))
	for i := 0; i < h && p.top+i < len(lines); i++ {
		col := x
		for _, sp := range lines[p.top+i] {
			col += pane.Put(screen, col, y+i, x+w-col, sp.text, sp.st)
		}
	}
}

// lines lays the pane out for width w.
func (p *StatsPane) lines(w int) [][]statsSpan {
	th := p.env.Theme
	base := th.Base.TCell()
	if len(p.infos) == 0 {
		return statsProse("No agents yet: their token figures appear here once one runs.", w, base)
	}
	names, nameW := []string{"agent"}, len("total")
	rows := []swarm.Stats{}
	var total swarm.Stats
	for _, in := range p.infos {
		names = append(names, in.Name)
		nameW = max(nameW, runewidth.StringWidth(in.Name))
		rows = append(rows, in.Stats)
		total = total.Add(in.Stats)
	}
	names = append(names, "total")
	rows = append(rows, total)
	cols, widths, hidden := statsFit(rows, w-nameW)
	var out [][]statsSpan
	for r, name := range names {
		bold := r == len(names)-1
		line := []statsSpan{{statsPad(name, nameW, false), statsStyle(th.Base, bold)}}
		if r == 0 {
			line[0].st = th.Title.TCell()
		}
		for i, c := range cols {
			text, st := c.head, th.Title.TCell()
			if r > 0 {
				text, st = c.value(rows[r-1]), statsStyle(c.style(th), bold)
			}
			line = append(line, statsSpan{"  ", base}, statsSpan{statsPad(text, widths[i], true), st})
		}
		out = append(out, line)
	}
	if len(hidden) > 0 {
		out = append(out, []statsSpan{{statsHidden(hidden, w), base}})
	}
	out = append(out, p.toolLines(sumTools(p.infos))...)
	out = append(out, nil, []statsSpan{{pane.FitWords("per call: naive vs sent tokens, newest right, scaled per agent", w), th.Title.TCell()}})
	labelW := nameW + len(" naive ")
	for _, in := range p.infos {
		naive, sent := statsSeries(in.Stats.Series, w-labelW)
		out = append(out,
			[]statsSpan{{statsPad(in.Name, nameW, false) + " naive ", base}, {naive, th.StatsNaive.TCell()}},
			[]statsSpan{{strings.Repeat(" ", nameW) + " sent  ", base}, {sent, th.StatsSent.TCell()}})
	}
	return out
}

// statsFit picks the columns that fit in w columns (each after a two
// column gap), keeping the lowest drop ranks, and returns them in table
// order with their widths and the names of the hidden ones.
func statsFit(rows []swarm.Stats, w int) (cols []statsColumn, widths []int, hidden []string) {
	need := make([]int, len(statsColumns))
	for i, c := range statsColumns {
		need[i] = len(c.head)
		for _, s := range rows {
			need[i] = max(need[i], runewidth.StringWidth(c.value(s)))
		}
	}
	keep := make([]bool, len(statsColumns))
	for rank := range len(statsColumns) {
		for i, c := range statsColumns {
			if c.drop == rank && need[i]+2 <= w {
				keep[i] = true
				w -= need[i] + 2
			}
		}
	}
	for i, c := range statsColumns {
		if keep[i] {
			cols, widths = append(cols, c), append(widths, need[i])
		} else {
			hidden = append(hidden, c.head)
		}
	}
	return cols, widths, hidden
}

// statsHidden names the hidden columns in one line of at most w columns:
// as many as fit whole, then how many more there are, after a shorter
// lead when the pane is narrow.
func statsHidden(hidden []string, w int) string {
	for _, lead := range []string{"hidden at this width: ", "hidden: "} {
		for k := len(hidden); k > 0; k-- {
			line := lead + strings.Join(hidden[:k], ", ")
			if k < len(hidden) {
				line += fmt.Sprintf(", +%d more", len(hidden)-k)
			}
			if runewidth.StringWidth(line) <= w {
				return line
			}
		}
	}
	return pane.FitWords(fmt.Sprintf("hidden: %d columns", len(hidden)), w)
}

// statsProse is text in style st as lines of at most w columns, broken
// between words.
func statsProse(text string, w int, st tcell.Style) [][]statsSpan {
	var out [][]statsSpan
	for _, l := range pane.WrapWords(text, w) {
		out = append(out, []statsSpan{{l, st}})
	}
	return out
}

func statsStyle(s themes.Style, bold bool) tcell.Style {
	st := s.TCell()
	if bold {
		st = st.Bold(true)
	}
	return st
}

// statsPad pads s with spaces to w columns, on the left when right is set.
func statsPad(s string, w int, right bool) string {
	pad := strings.Repeat(" ", max(w-runewidth.StringWidth(s), 0))
	if right {
		return pad + s
	}
	return s + pad
}

// statsSaved formats the share of naive tokens the diet did not send.
func statsSaved(s swarm.Stats) string {
	if s.NaiveTokens == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", s.SavedPercent())
}

// statsHuman formats a count for reading at a glance: 812, 12.3k, 745k,
// 4.5M, with at most three significant digits past a thousand.
func statsHuman(n int) string {
	f := float64(n)
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 99_950:
		return fmt.Sprintf("%.1fk", f/1e3)
	case n < 999_500:
		return fmt.Sprintf("%.0fk", f/1e3)
	case n < 99_950_000:
		return fmt.Sprintf("%.1fM", f/1e6)
	case n < 999_500_000:
		return fmt.Sprintf("%.0fM", f/1e6)
	}
	return fmt.Sprintf("%.1fG", f/1e9)
}

// statsBars are the sparkline's eight bar heights.
var statsBars = []rune("▁▂▃▄▅▆▇█")

// statsSeries returns the naive and sent sparklines of the newest width
// calls, right-aligned and scaled to the largest naive count among them.
func statsSeries(series []swarm.Point, width int) (naive, sent string) {
	if width <= 0 {
		return "", ""
	}
	if len(series) == 0 {
		return "no calls yet", ""
	}
	series = series[max(len(series)-width, 0):]
	top := 1
	for _, pt := range series {
		top = max(top, pt.Naive)
	}
	var n, s strings.Builder
	pad := strings.Repeat(" ", width-len(series))
	n.WriteString(pad)
	s.WriteString(pad)
	for _, pt := range series {
		n.WriteRune(statsBar(pt.Naive, top))
		s.WriteRune(statsBar(pt.Sent, top))
	}
	return n.String(), s.String()
}

// statsBar returns the bar for v on a scale whose full height is top: a
// space for nothing, else the smallest bar at least v/top high.
func statsBar(v, top int) rune {
	if v <= 0 {
		return ' '
	}
	lvl := min((v*len(statsBars)+top-1)/top, len(statsBars))
	return statsBars[max(lvl, 1)-1]
}
