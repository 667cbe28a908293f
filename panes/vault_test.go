package panes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/internal/human"
	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

const (
	vaultTestSecret  = "sk-proj-Zq8vT3nB6yW1xK4mR7pL0aS2"
	vaultTestHostile = "before [red]x[-] and \x1b[2J after\x1b]0;owned\x07 end\n"
)

// vaultTestVault returns a vault holding blocks of every kind the pane
// shows, created at fixed times before the test clock, and their ids in
// the order given.
func vaultTestVault(t *testing.T) (*vault.Vault, []string) {
	t.Helper()
	now := testEnv().Time()
	var pytest strings.Builder
	pytest.WriteString("$ pytest -q\n")
	for i := range 30 {
		pytest.WriteString("tests/test_auth.py::test_case_" + string(rune('a'+i%26)) + " PASSED\n")
	}
	pytest.WriteString("E   AssertionError: token expired\n\tat auth/token.py:42\nFAILED tests/test_auth.py::test_refresh\n")
	blocks := []vault.Block{
		{Data: []byte(pytest.String()), Meta: vault.Meta{Kind: "tool:shell", Agent: "agent-1", Tokens: 2110,
			Created: now.Add(-5 * time.Second), Summary: "lines=34; files=[auth/token.py]; err=AssertionError: token expired"}},
		{Data: []byte(strings.Repeat("The refresh path reuses the old token.\n", 400)), Meta: vault.Meta{Kind: "assistant",
			Agent: "agent-2", Tokens: 3400, Created: now.Add(-3 * time.Minute), Summary: "lines=400; first=The refresh path reuses the old token."}},
		{Data: []byte("OPENAI_API_KEY=" + vaultTestSecret + "\nDEBUG=1\n"), Meta: vault.Meta{Kind: "tool:read", Agent: "agent-1",
			Tokens: 21, Created: now.Add(-2 * time.Hour), Summary: "lines=2; files=[.env]; first=OPENAI_API_KEY=" + vaultTestSecret, Sensitive: true}},
		{Data: []byte(vaultTestHostile), Meta: vault.Meta{Kind: "tool:shell", Agent: "agent-2", Tokens: 12, TokensEstimated: true,
			Created: now.Add(-4 * 24 * time.Hour), Summary: "first=before [red]x[-] and \x1b[2J after"}},
	}
	v := vaulttest.MustOpen(t)
	ids, err := v.PutMany(blocks)
	if err != nil {
		t.Fatal(err)
	}
	return v, ids
}

// vaultPress sends keys, spelled as in config.toml, to p.
func vaultPress(p tview.Primitive, keys ...string) {
	for _, s := range keys {
		k := keymap.MustParse(s)
		mod := tcell.ModNone
		if k.Alt {
			mod = tcell.ModAlt
		}
		p.InputHandler()(tcell.NewEventKey(k.Code, k.Rune, mod), func(tview.Primitive) {})
	}
}

// vaultType types text into p one rune at a time.
func vaultType(p tview.Primitive, text string) {
	for _, r := range text {
		p.InputHandler()(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone), func(tview.Primitive) {})
	}
}

func TestVaultListGolden(t *testing.T) {
	v, _ := vaultTestVault(t)
	p := NewVaultPane(testEnv(), v, Injector{})
	if got, want := p.Title(), "vault (4 blocks)"; got != want {
		t.Errorf("Title() = %q, want %q", got, want)
	}
	for _, size := range []struct {
		name string
		w, h int
	}{{"vault_list_120x40", 120, 40}, {"vault_list_80x24", 80, 24}} {
		s := render(t, p, size.w, size.h)
		golden(t, size.name, screenText(s))
		if got, want := styleAt(s, 0, 1), testEnv().Theme.Selection.TCell(); got != want {
			t.Errorf("%s: newest row style = %v, want Selection %v", size.name, got, want)
		}
	}
}

func TestVaultViewerGolden(t *testing.T) {
	v, _ := vaultTestVault(t)
	p := NewVaultPane(testEnv(), v, Injector{})
	vaultPress(p, "Enter")
	golden(t, "vault_view_80x24", screenText(render(t, p, 80, 24)))
	vaultPress(p, "G")
	golden(t, "vault_view_end_80x24", screenText(render(t, p, 80, 24)))
	vaultPress(p, "q")
	if got := screenText(render(t, p, 80, 24)); !strings.HasPrefix(got, "id ") {
		t.Errorf("q did not return to the list:\n%s", got)
	}
}

func TestVaultViewerSearch(t *testing.T) {
	v, _ := vaultTestVault(t)
	p := NewVaultPane(testEnv(), v, Injector{})
	vaultPress(p, "Enter", "/")
	vaultType(p, "passed")
	vaultPress(p, "Enter", "n", "n", "N")
	s := render(t, p, 80, 24)
	text := screenText(s)
	if !strings.Contains(text, "/passed: match 2 of 30") {
		t.Fatalf("search line missing:\n%s", text)
	}
	lines := strings.Split(text, "\n")
	hit := testEnv().Theme.SearchMatch.TCell()
	found := false
	for y, l := range lines {
		if x := strings.Index(l, "PASSED"); x >= 0 && y > 0 {
			found = true
			if got := styleAt(s, x, y); got != hit {
				t.Errorf("row %d: match style %v, want SearchMatch %v", y, got, hit)
			}
		}
	}
	if !found {
		t.Errorf("no match on screen:\n%s", text)
	}
	vaultPress(p, "/", "Esc")
	if text := screenText(render(t, p, 80, 24)); strings.Contains(text, "/passed") {
		t.Errorf("Esc kept the search:\n%s", text)
	}
}

func TestVaultSensitive(t *testing.T) {
	v, ids := vaultTestVault(t)
	th := testEnv().Theme
	p := NewVaultPane(testEnv(), v, Injector{})
	s := render(t, p, 120, 40)
	list := screenText(s)
	if strings.Contains(list, vaultTestSecret) || !strings.Contains(list, vaultMasked) {
		t.Fatalf("list does not mask the sensitive summary:\n%s", list)
	}
	x := len([]rune(strings.Split(list, "\n")[3])) - len([]rune(vaultMasked))
	if !strings.HasSuffix(strings.Split(list, "\n")[3], vaultMasked) || styleAt(s, x, 3) != th.VaultSensitive.TCell() {
		t.Errorf("masked summary not in VaultSensitive style:\n%s", list)
	}
	if err := p.Open(ids[2]); err != nil {
		t.Fatal(err)
	}
	masked := screenText(render(t, p, 120, 40))
	golden(t, "vault_sensitive_masked_120x40", masked)
	if strings.Contains(masked, vaultTestSecret) || !strings.Contains(masked, "[REDACTED]") {
		t.Fatalf("viewer shows the secret before r:\n%s", masked)
	}
	vaultPress(p, "r")
	golden(t, "vault_sensitive_revealed_120x40", screenText(render(t, p, 120, 40)))
	vaultPress(p, "r")
	if again := screenText(render(t, p, 120, 40)); again != masked {
		t.Errorf("second r did not mask again:\n%s", again)
	}
}

func TestVaultFilter(t *testing.T) {
	v, ids := vaultTestVault(t)
	p := NewVaultPane(testEnv(), v, Injector{})
	vaultPress(p, "/")
	vaultType(p, "assert")
	if len(p.shown) != 1 || p.shown[0].ID != ids[0] {
		t.Fatalf("filter %q shows %v, want only %s", p.filter, p.shown, ids[0])
	}
	golden(t, "vault_filter_80x24", screenText(render(t, p, 80, 24)))
	vaultPress(p, "Backspace", "Backspace", "Backspace", "Backspace", "Backspace", "Backspace")
	if len(p.shown) != 4 {
		t.Errorf("empty filter shows %d blocks, want 4", len(p.shown))
	}
	vaultType(p, ids[1][4:12])
	if len(p.shown) != 1 || p.shown[0].ID != ids[1] {
		t.Errorf("id filter (substring fallback) shows %d blocks, want %s", len(p.shown), ids[1])
	}
	vaultPress(p, "Enter")
	if p.editing || p.filter == "" || !strings.Contains(p.Title(), "1 of 4 blocks") {
		t.Errorf("Enter did not keep the filter: editing=%v title=%q", p.editing, p.Title())
	}
	vaultPress(p, "Esc")
	if p.filter != "" || len(p.shown) != 4 {
		t.Errorf("Esc in the list left filter %q and %d blocks", p.filter, len(p.shown))
	}
	vaultPress(p, "/")
	vaultType(p, "zzz-nothing")
	if !strings.Contains(screenText(render(t, p, 80, 24)), "No block matches") {
		t.Error("an empty result does not say so")
	}
	vaultPress(p, "Esc")
	if p.editing || p.filter != "" {
		t.Errorf("Esc while typing left filter %q", p.filter)
	}
}

// TestVaultInject checks that i asks before a block rides the agent's next
// turn, naming the block's size in tokens, with Cancel focused: Enter, n,
// Esc and stray keys inject nothing; y or Inject then Enter inject.
func TestVaultInject(t *testing.T) {
	v, ids := vaultTestVault(t)
	env := testEnv()
	var notes, injected []string
	env.Notify = func(msg string) { notes = append(notes, msg) }
	fail := false
	p := NewVaultPane(env, v, Injector{
		Target: func() (string, error) { return "agent-2", nil },
		Give: func(agent, id string) error {
			injected = append(injected, agent+" "+id)
			if fail {
				return errors.New("agent-2 is gone")
			}
			return nil
		}})
	data, err := v.Get(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	size := grouped(tokens.Default().Count(string(data)).Tokens) + " tokens"
	for _, keys := range [][]string{{"Enter"}, {"n"}, {"Esc"}, {"Tab", "Tab", "Enter"}, {"j", "q", "g"}} {
		vaultPress(p, "g", "j", "i")
		text := screenText(render(t, p, 80, 24))
		if !strings.Contains(text, "Inject "+ids[1]) || !strings.Contains(text, "into agent-2's next turn") || !strings.Contains(text, size) || !strings.Contains(text, "(y/n)") {
			t.Fatalf("i does not ask first with the block's size (%s):\n%s", size, text)
		}
		vaultPress(p, keys...)
		if len(injected) != 0 {
			t.Fatalf("%v after i injected %v", keys, injected)
		}
		if keys[len(keys)-1] != "g" && p.asking != nil {
			t.Fatalf("%v left the question open", keys)
		}
		p.asking = nil
	}
	vaultPress(p, "g", "j", "i", "y")
	if len(injected) != 1 || injected[0] != "agent-2 "+ids[1] {
		t.Fatalf("y injected %v, want [%s]", injected, ids[1])
	}
	fail = true
	vaultPress(p, "Enter", "i", "Tab", "Enter")
	if len(injected) != 2 || injected[1] != "agent-2 "+ids[1] {
		t.Fatalf("Inject from the viewer injected %v", injected)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], ids[1]+" will ride agent-2's") || !strings.Contains(notes[1], "agent-2 is gone") {
		t.Errorf("notifications = %q", notes)
	}
}

// TestVaultInjectFitsAShortPane checks the question keeps the block's
// size and its (y/n) in the short vault pane of an 80x24 workstation (8
// rows), where it lost both.
func TestVaultInjectFitsAShortPane(t *testing.T) {
	v, _ := vaultTestVault(t)
	for _, size := range [][2]int{{40, 8}, {80, 8}, {26, 9}} {
		p := NewVaultPane(testEnv(), v, Injector{
			Target: func() (string, error) { return "agent-1", nil },
			Give:   func(string, string) error { return nil }})
		vaultPress(p, "j", "i")
		text := screenText(render(t, p, size[0], size[1]))
		if !strings.Contains(text, "tokens") || !strings.Contains(text, "(y/n)") || !strings.Contains(text, "Cancel") {
			t.Errorf("at %dx%d the question lost its size, (y/n) or buttons:\n%s", size[0], size[1], text)
		}
	}
}

// TestVaultInjectGolden draws the inject question at both sizes.
func TestVaultInjectGolden(t *testing.T) {
	v, _ := vaultTestVault(t)
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		p := NewVaultPane(testEnv(), v, Injector{
			Target: func() (string, error) { return "agent-1", nil },
			Give:   func(string, string) error { return nil }})
		vaultPress(p, "j", "i")
		s := render(t, p, size[0], size[1])
		golden(t, fmt.Sprintf("vault_inject_%dx%d", size[0], size[1]), screenText(s))
		if p.asking == nil || p.asking.yes {
			t.Fatal("the question is not asked with Cancel focused")
		}
	}
}

func TestVaultHostileTextLiteral(t *testing.T) {
	v, ids := vaultTestVault(t)
	p := NewVaultPane(testEnv(), v, Injector{})
	for _, open := range []bool{false, true} {
		if open {
			if err := p.Open(ids[3]); err != nil {
				t.Fatal(err)
			}
		}
		s := render(t, p, 120, 40)
		text := screenText(s)
		if !strings.Contains(text, "[red]x[-]") {
			t.Errorf("open=%v: colour tag not shown literally:\n%s", open, text)
		}
		if strings.ContainsAny(text, "\x1b\x07") {
			t.Errorf("open=%v: a control byte reached the screen:\n%q", open, text)
		}
		if open && !strings.Contains(text, `and \x1b[2J after\x1b]0;owned\x07 end`) {
			t.Errorf("viewer does not show the escape sequences as text:\n%s", text)
		}
	}
}

func TestVaultOpenAndRefresh(t *testing.T) {
	v, ids := vaultTestVault(t)
	p := NewVaultPane(testEnv(), v, Injector{})
	if err := p.Open("ctx:ffffffffffff"); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("Open(unknown) = %v, want ErrNotFound", err)
	}
	if err := p.Open(ids[1][:12]); err != nil || p.Title() != "vault: "+ids[1] {
		t.Fatalf("Open(prefix) = %v, title %q", err, p.Title())
	}
	vaultPress(p, "Esc")
	if p.selectedID() != ids[1] {
		t.Errorf("after Open the list selects %s, want %s", p.selectedID(), ids[1])
	}
	id, err := v.Put([]byte("fresh block"), vault.Meta{Kind: "user", Created: testEnv().Time()})
	if err != nil {
		t.Fatal(err)
	}
	p.Refresh()
	if p.Title() != "vault (5 blocks)" || p.shown[0].ID != id || p.selectedID() != ids[1] {
		t.Errorf("after Refresh: title %q, first %s, selected %s", p.Title(), p.shown[0].ID, p.selectedID())
	}
	vaultPress(p, "G")
	if p.sel != 4 {
		t.Errorf("G selects row %d, want 4", p.sel)
	}
	render(t, p, 80, 24)
	vaultPress(p, "g", "Down", "PgDn")
	if p.sel != 4 {
		t.Errorf("PgDn selects row %d, want 4", p.sel)
	}
}

func TestVaultAge(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{-time.Second, "0s"}, {5 * time.Second, "5s"}, {3*time.Minute + 59*time.Second, "3m"}, {2 * time.Hour, "2h"}, {100 * time.Hour, "4d"}} {
		if got := human.Age(c.d); got != c.want {
			t.Errorf("human.Age(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := vaultBytes(12_595); got != "12.3K" {
		t.Errorf("vaultBytes(12595) = %q", got)
	}
}

func TestVaultViewerAsksTheSidecarForASummaryHint(t *testing.T) {
	v, _ := vaultTestVault(t)
	env := testEnv()
	updates := make(chan func(), 4)
	env.Update = func(fn func()) { updates <- fn }
	var notes []string
	env.Notify = func(m string) { notes = append(notes, m) }
	p := NewVaultPane(env, v, Injector{})
	var asked string
	p.SetSummarizer(func(_ context.Context, kind, text string) (string, error) {
		asked = kind
		return "pytest run: test_refresh fails on an expired token", nil
	})
	vaultPress(p, "S")
	if len(notes) != 1 || !strings.Contains(notes[0], "open a block") {
		t.Fatalf("S on the list: %v", notes)
	}
	vaultPress(p, "Enter", "S")
	(<-updates)()
	text := screenText(render(t, p, 120, 20))
	if asked != "tool:shell" || !strings.Contains(text, "sidecar summary (a hint; the block below is exact): pytest run") || !strings.Contains(text, "$ pytest -q") {
		t.Fatalf("summary hint (asked %q):\n%s", asked, text)
	}
}

// TestVaultWords: one block is "1 block", the shell tool's kept output
// shows its whole kind, and a kind wider than the column ends in "…".
func TestVaultWords(t *testing.T) {
	v := vaulttest.MustOpen(t)
	now := testEnv().Time()
	put := func(kind, data string) {
		t.Helper()
		if _, err := v.PutMany([]vault.Block{{Data: []byte(data), Meta: vault.Meta{Kind: kind, Agent: "agent-1", Created: now}}}); err != nil {
			t.Fatal(err)
		}
	}
	put("tool:shell STDOUT", "out\n")
	p := NewVaultPane(testEnv(), v, Injector{})
	if got, want := p.Title(), "vault (1 block)"; got != want {
		t.Errorf("Title() = %q, want %q", got, want)
	}
	put("tool:an-unusually-long-kind", "long\n")
	p = NewVaultPane(testEnv(), v, Injector{})
	text := screenText(render(t, p, 120, 40))
	for _, want := range []string{"tool:shell STDOUT ", "tool:an-unusuall…"} {
		if !strings.Contains(text, want) {
			t.Errorf("the list lacks %q:\n%s", want, text)
		}
	}
	vaultPress(p, "/")
	vaultType(p, "STDOUT")
	vaultPress(p, "Enter")
	if got, want := p.Title(), `vault (1 of 2 blocks, filter "STDOUT")`; got != want {
		t.Errorf("filtered Title() = %q, want %q", got, want)
	}
}
