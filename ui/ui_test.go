package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/internal/goldentest"
	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// fakePane is a pane that draws its name and records the keys it gets.
type fakePane struct {
	*tview.Box
	spec    pane.Spec
	name    string
	keys    []string
	closed  bool
	table   *keymap.Table
	modes   []*keymap.Table
	waiting bool
	// passes makes the pane's "program" take every key (pane.Passer).
	passes bool
}

func (f *fakePane) PassesKey(*tcell.EventKey) bool { return f.passes }

func (f *fakePane) KeyTables() []*keymap.Table { return append([]*keymap.Table{f.table}, f.modes...) }

func (f *fakePane) NeedsYou() bool { return f.waiting }

func (f *fakePane) CloseWarning() string {
	if f.waiting {
		return f.name + " is busy."
	}
	return ""
}

func (f *fakePane) SendTask(text string) error {
	f.keys = append(f.keys, "task:"+text)
	return nil
}

// PersistState keeps the pane's name, so that a restored pane has it; an
// agent pane names its agent as the workstation's do.
func (f *fakePane) PersistState() map[string]string {
	if f.spec.Kind == pane.KindAgent {
		return map[string]string{"name": f.name, pane.StateAgent: f.name}
	}
	return map[string]string{"name": f.name}
}

func (f *fakePane) Kind() pane.Kind     { return f.spec.Kind }
func (f *fakePane) Title() string       { return f.name }
func (f *fakePane) Keys() *keymap.Table { return f.table }
func (f *fakePane) Close() error        { f.closed = true; return nil }
func (f *fakePane) Draw(s tcell.Screen) {
	f.DrawForSubclass(s, f)
	x, y, w, _ := f.GetInnerRect()
	tview.Print(s, tview.Escape("<"+f.name+">"), x, y, w, tview.AlignLeft, tcell.ColorDefault)
}
func (f *fakePane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return func(ev *tcell.EventKey, _ func(tview.Primitive)) { f.keys = append(f.keys, keymap.Of(ev).String()) }
}

// fakeFactory numbers the panes it makes per kind and role.
type fakeFactory struct {
	n      map[string]int
	made   []*fakePane
	mu     sync.Mutex
	agents []AgentStatus
	// memPending is the status bar's count of memory candidates.
	memPending int
	// reembed is the status bar's memory re-embedding.
	reembed Reembed
	// mcpFailed and mcpServers are the status bar's MCP server counts.
	mcpFailed, mcpServers int
	// fail makes a kind's panes fail to build.
	fail map[pane.Kind]bool
}

func (ff *fakeFactory) setAgents(a ...AgentStatus) {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	ff.agents = a
}

// testKinds are the workstation's kinds of pane as package panes
// describes them (ui does not import panes).
var testKinds = []pane.Info{
	{Kind: pane.KindAgent, Scopes: []string{"agent"}},
	{Kind: pane.KindShell, Scopes: []string{"shell", "copy"}, Key: "S", Action: "new-shell", Help: "new shell pane", Fresh: true},
	{Kind: pane.KindVault, Scopes: []string{"vault"}, Key: "v", Action: "vault", Help: "show the vault pane"},
	{Kind: pane.KindStats, Scopes: []string{"stats"}, Key: "t", Action: "stats", Help: "show the stats pane"},
	{Kind: pane.KindMemory, Scopes: []string{"memory"}, Key: "m", Action: "memory", Help: "show the memory pane (memories, candidates to approve)",
		Keys: func() []*keymap.Table {
			return []*keymap.Table{keymap.New("memory", keymap.Bind("approve", "a", "approve the candidate", true, nil))}
		}},
	{Kind: pane.KindBoard, Scopes: []string{"board"}, Key: "b", Action: "board", Help: "show the swarm's task board"},
}

// registry registers the fake factory for every kind.
func (ff *fakeFactory) registry() *pane.Registry {
	r := pane.NewRegistry()
	for _, k := range testKinds {
		r.Register(k, ff.make)
	}
	return r
}

func (ff *fakeFactory) make(s pane.Spec) (pane.Pane, error) {
	if ff.n == nil {
		ff.n = map[string]int{}
	}
	if ff.fail[s.Kind] {
		return nil, fmt.Errorf("no %s today", s.Kind)
	}
	kind := s.String()
	ff.n[kind]++
	name := kind + "-" + string(rune('0'+ff.n[kind]))
	if saved := s.State["name"]; saved != "" {
		name = saved
	}
	p := &fakePane{Box: tview.NewBox(), spec: s, name: name,
		table: keymap.New(kind, keymap.Bind("poke", "Ctrl-p", "poke the "+kind, true, nil))}
	if s.Kind == pane.KindShell {
		p.modes = []*keymap.Table{keymap.New("copy", keymap.Bind("quit", "q", "leave copy mode", true, nil),
			keymap.Bind("select-lines", "V", "select lines", true, nil))}
	}
	ff.made = append(ff.made, p)
	return p, nil
}

func newTestDriver(t *testing.T, w, h int, layout ...pane.Kind) (*Driver, *fakeFactory) {
	t.Helper()
	ff := &fakeFactory{}
	status := func() Status {
		st := Status{Workspace: "/home/u/proj", Model: "test-model", NaiveTokens: 20000, SentTokens: 5000}
		ff.mu.Lock()
		st.Agents = ff.agents
		st.MemoryPending = ff.memPending
		st.Reembed = ff.reembed
		st.MCPFailed, st.MCPServers = ff.mcpFailed, ff.mcpServers
		ff.mu.Unlock()
		return st
	}
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Status: status, Layout: layout}, w, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	return d, ff
}

func focusedName(d *Driver) string {
	name := ""
	_ = d.Do(func() {
		if f := d.App.Focused(); f != nil {
			name = f.Title()
		}
	})
	return name
}

// leaves copies the layout's leaves on the UI goroutine.
func leaves(d *Driver) []leaf {
	var out []leaf
	_ = d.Do(func() {
		for _, l := range d.App.layout.tree.leaves() {
			out = append(out, *l)
		}
	})
	return out
}

func TestDefaultLayoutOpensAgentShellVaultStats(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		d, _ := newTestDriver(t, size[0], size[1])
		text := d.Text()
		for _, want := range []string{"0 agent-1", "1 shell-1", "2 vault-1", "3 stats-1", "test-model", "saved 75.0%", "proj"} {
			if !strings.Contains(text, want) {
				t.Errorf("%dx%d: %q missing:\n%s", size[0], size[1], want, text)
			}
		}
		if focusedName(d) != "agent-1" {
			t.Errorf("focus starts on %q", focusedName(d))
		}
		golden(t, fmt.Sprintf("default_%dx%d", size[0], size[1]), text)
	}
}

// golden compares got with testdata/<name>.golden; -update rewrites it.
func golden(t *testing.T, name, got string) { goldentest.Check(t, name, got) }
