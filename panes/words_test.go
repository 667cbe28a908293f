package panes

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rivo/tview"

	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// thirdOf is p as the right-hand column of three, as spawn 3 tiles a
// window: 26 columns of an 80-column terminal.
func thirdOf(p tview.Primitive) tview.Primitive {
	return tview.NewFlex().AddItem(tview.NewBox(), 0, 1, false).AddItem(tview.NewBox(), 0, 1, false).AddItem(p, 0, 1, false)
}

// checkWholeWords fails when a word of text is none of words: a word cut
// at the pane's edge ("faul") is not one of them, a whole one before "…"
// is. Sparklines and counts ("+3") are skipped.
func checkWholeWords(t *testing.T, text string, words string) {
	t.Helper()
	known := map[string]bool{}
	for _, w := range strings.Fields(words) {
		known[w], known[strings.TrimRight(w, ",.:")] = true, true
	}
	for _, w := range strings.Fields(text) {
		w = strings.TrimSuffix(w, "…")
		if _, err := strconv.Atoi(w); err != nil && !known[w] && !strings.ContainsAny(w, string(statsBars)) {
			t.Errorf("%q is cut or unknown in\n%s", w, text)
		}
	}
}

// TestStatsAndVaultNeverCutAWord draws the stats pane and the empty vault
// pane full size and as a third of the window at 80x24 and 160x48: their
// sentences break between words, where a narrow stats pane showed
// "hidden at this width: refs, seen, faul".
func TestStatsAndVaultNeverCutAWord(t *testing.T) {
	agents := statsTestAgents()
	stats := NewStatsPane(testEnv(), func() []swarm.Info { return agents })
	var statsWords strings.Builder
	statsWords.WriteString(screenText(render(t, stats, 200, 40)) + " hidden at this width: hidden: more")
	for _, c := range statsColumns {
		statsWords.WriteString(" " + c.head + ",")
	}
	vault := NewVaultPane(testEnv(), vaulttest.MustOpen(t), Injector{})
	vaultWords := screenText(render(t, vault, 200, 10))
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		for _, c := range []struct {
			name  string
			p     tview.Primitive
			words string
		}{{"stats", stats, statsWords.String()}, {"vault_empty", vault, vaultWords}} {
			whole := screenText(render(t, c.p, w, h))
			checkWholeWords(t, whole, c.words)
			third := screenText(render(t, thirdOf(c.p), w, h))
			checkWholeWords(t, third, c.words)
			golden(t, fmt.Sprintf("%s_third_%dx%d", c.name, w, h), third)
		}
	}
}
