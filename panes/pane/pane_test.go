package pane

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
)

// testPane is the least a Pane can be.
type testPane struct {
	*tview.Box
	spec Spec
}

func (p *testPane) Kind() Kind          { return p.spec.Kind }
func (p *testPane) Title() string       { return p.spec.String() }
func (p *testPane) Keys() *keymap.Table { return keymap.New(string(p.spec.Kind)) }
func (p *testPane) Close() error        { return nil }

func TestRegistryBuildsEachKindWithItsFactory(t *testing.T) {
	r := NewRegistry()
	for _, k := range []Kind{KindAgent, KindShell} {
		r.Register(Info{Kind: k, Scopes: []string{string(k)}}, func(s Spec) (Pane, error) { return &testPane{Box: tview.NewBox(), spec: s}, nil })
	}
	for _, tc := range []struct {
		spec  Spec
		title string
	}{
		{Spec{Kind: KindShell}, "shell"},
		{Spec{Kind: KindAgent}, "agent"},
		{Spec{Kind: KindAgent, Role: "coder"}, "agent:coder"},
	} {
		p, err := r.New(tc.spec)
		if err != nil {
			t.Fatalf("New(%v): %v", tc.spec, err)
		}
		if p.Kind() != tc.spec.Kind || p.Title() != tc.title {
			t.Errorf("New(%v) = %q %q, want %q %q", tc.spec, p.Kind(), p.Title(), tc.spec.Kind, tc.title)
		}
	}
	if _, err := r.New(Spec{Kind: KindVault}); err == nil || err.Error() != `unknown pane kind "vault"` {
		t.Errorf("an unregistered kind: %v", err)
	}
}

func TestSpecJSONRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		json string
	}{
		{Spec{Kind: KindVault}, `{"kind":"vault"}`},
		{Spec{Kind: KindAgent, Role: "coder", State: map[string]string{StateAgent: "agent-2", StateSession: "s1"}},
			`{"kind":"agent","role":"coder","state":{"agent":"agent-2","session":"s1"}}`},
		{Spec{Kind: KindShell, State: map[string]string{StateDir: "/tmp"}}, `{"kind":"shell","state":{"dir":"/tmp"}}`},
	} {
		b, err := json.Marshal(tc.spec)
		if err != nil || string(b) != tc.json {
			t.Fatalf("Marshal(%v) = %s, %v; want %s", tc.spec, b, err, tc.json)
		}
		var back Spec
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, tc.spec) {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", b, back, err, tc.spec)
		}
	}
}

func TestRegistryRefusesWiringMistakes(t *testing.T) {
	build := func(Spec) (Pane, error) { return nil, nil }
	for name, register := range map[string]func(r *Registry){
		"twice": func(r *Registry) { r.Register(Info{Kind: KindStats}, build); r.Register(Info{Kind: KindStats}, build) },
		"nil":   func(r *Registry) { r.Register(Info{Kind: KindStats}, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			register(NewRegistry())
		}()
	}
}

func TestEnvDefaults(t *testing.T) {
	var e Env
	if e.PrefixName() != "C-b" {
		t.Errorf("PrefixName = %q", e.PrefixName())
	}
	if d := time.Since(e.Time()); d < 0 || d > time.Minute {
		t.Errorf("Time is %v from now", d)
	}
	e.Tell("dropped without a Notify")
	fixed := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var told []string
	e = Env{Prefix: "C-a", Now: func() time.Time { return fixed }, Notify: func(m string) { told = append(told, m) }}
	if e.PrefixName() != "C-a" || !e.Time().Equal(fixed) {
		t.Errorf("PrefixName, Time = %q, %v", e.PrefixName(), e.Time())
	}
	e.Tell("hello")
	if strings.Join(told, "|") != "hello" {
		t.Errorf("told %q", told)
	}
}

func TestKeyTableAppliesBindingsAndReportsUnknownActions(t *testing.T) {
	var told []string
	notify := func(m string) { told = append(told, m) }
	refresh := keymap.Bind("refresh", "r", "re-read", true, nil)
	e := Env{Bindings: map[string]string{"stats.refresh": "R", "agent.refresh": "x"}, Notify: notify}
	if got := e.KeyTable("stats", refresh).Actions()[0].KeyNames(); got != "R" || len(told) != 0 {
		t.Errorf("refresh is on %q; told %q", got, told)
	}
	e.Bindings = map[string]string{"stats.nope": "x"}
	e.KeyTable("stats", refresh)
	if len(told) != 1 || !strings.Contains(told[0], "nope") {
		t.Errorf("told %q", told)
	}
}

func TestPutDrawsLiterallyAndClips(t *testing.T) {
	s := tcell.NewSimulationScreen("")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(10, 1)
	if n := Put(s, 0, 0, 6, "a\tb[red]界z", tcell.StyleDefault); n != 6 {
		t.Errorf("Put used %d columns, want 6", n)
	}
	s.Show()
	cells, w, _ := s.GetContents()
	var b strings.Builder
	for _, c := range cells[:w] {
		if len(c.Runes) > 0 {
			b.WriteRune(c.Runes[0])
		}
	}
	if got := strings.TrimRight(b.String(), " "); got != "a?b[re" {
		t.Errorf("drew %q", got)
	}
}
