package ui

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// restoredDriver starts an application restoring snap with a fresh fake
// factory.
func restoredDriver(t *testing.T, snap *Snapshot, ff *fakeFactory) *Driver {
	t.Helper()
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Restore: snap}, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	return d
}

func snapshot(t *testing.T, d *Driver) Snapshot {
	t.Helper()
	var snap Snapshot
	d.Script(t).Do(func() { snap = d.App.Snapshot() })
	return snap
}

// panesText is the screen's panes: its first 38 of 40 rows, without the
// bars, which the restored application's test wiring does not fill.
func panesText(d *Driver) string {
	return strings.Join(strings.Split(d.Text(), "\n")[:38], "\n")
}

func TestSnapshotRestoresTreeWeightsFocusAndZoom(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"default", nil},
		{"splits and resize", []string{"Ctrl-b", "q", "0", "Ctrl-b", "%", "Ctrl-b", `"`, "Ctrl-b", "L", "Ctrl-b", "J", "Ctrl-b", "q", "1"}},
		{"zoomed", []string{"Ctrl-b", "q", "2", "Ctrl-b", "z"}},
		{"tiled", []string{"Ctrl-b", "Alt-5"}},
		{"a preset then zoomed", []string{"Ctrl-b", "Space", "Ctrl-b", "Space", "Ctrl-b", "Space", "Ctrl-b", "q", "2", "Ctrl-b", "z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := newTestDriver(t, 120, 40)
			s := d.Script(t)
			s.Press(tc.keys...)
			want := snapshot(t, d)
			b, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			var back Snapshot
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			r := restoredDriver(t, &back, &fakeFactory{})
			if got := snapshot(t, r); !reflect.DeepEqual(got, want) {
				t.Fatalf("restored snapshot differs:\n got %+v\nwant %+v\njson %s", got, want, b)
			}
			if got, wantText := panesText(r), panesText(d); got != wantText {
				t.Fatalf("restored screen differs:\n%s\nwant:\n%s", got, wantText)
			}
		})
	}
}

func TestSnapshotJSONNamesDirectionsAndStates(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40, "shell", "agent")
	b, err := json.Marshal(snapshot(t, d))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"windows":[{"root":{"children":[{"pane":{"kind":"shell","state":{"name":"shell-1"},"id":1}},` +
		`{"pane":{"kind":"agent","state":{"agent":"agent-1","name":"agent-1"},"id":2}}],"weights":[1,1]},"focus":0}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

// one is a snapshot of one window whose tree is root.
func one(root *SnapshotNode) Snapshot { return Snapshot{Windows: []WindowSnapshot{{Root: root}}} }

// A journal written before kws had windows holds one window's tree at the
// top level; it restores as that window.
func TestSnapshotReadsAJournalFromBeforeWindows(t *testing.T) {
	old := `{"root":{"dir":"top-bottom","children":[{"pane":{"kind":"shell","state":{"name":"shell-1"}}},` +
		`{"pane":{"kind":"agent","state":{"agent":"agent-1","name":"agent-1"}}}],"weights":[2,1]},"focus":1,"zoomed":true,"layout":"even-vertical"}`
	var snap Snapshot
	if err := json.Unmarshal([]byte(old), &snap); err != nil {
		t.Fatal(err)
	}
	r := restoredDriver(t, &snap, &fakeFactory{})
	got := snapshot(t, r)
	if len(got.Windows) != 1 || got.Windows[0].Focus != 1 || !got.Windows[0].Zoomed || got.Windows[0].Layout != EvenVertical ||
		!reflect.DeepEqual(got.Windows[0].Root.Weights, []float64{2, 1}) {
		t.Fatalf("restored %+v from %s", got, old)
	}
	r.Script(t).WaitFor("1 agent-1 [Z]")
}

func TestRestoreLeavesOutPanesThatFail(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40)
	d.Script(t).Press("Ctrl-b", "q", "2") // focus the vault pane
	snap := snapshot(t, d)
	r := restoredDriver(t, &snap, &fakeFactory{fail: map[pane.Kind]bool{pane.KindVault: true}})
	r.Script(t).WaitFor("restored the layout without: vault pane: no vault today")
	text := r.Text()
	for _, want := range []string{"0 agent-1", "1 shell-1", "2 stats-1"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q missing:\n%s", want, text)
		}
	}
	if l := leaves(r); len(l) != 3 || l[2].w != 120 {
		t.Fatalf("the stats pane should take the vault's half of the bottom row: %+v", l)
	}
	if got := focusedName(r); got != "agent-1" {
		t.Errorf("focus on %q, want the first pane when the focused one failed", got)
	}
}

func TestRestoreFallsBackToTheDefaultLayout(t *testing.T) {
	leafOf := func(k pane.Kind) SnapshotNode { return SnapshotNode{Pane: &pane.Spec{Kind: k}} }
	for _, tc := range []struct {
		name   string
		snap   Snapshot
		fail   pane.Kind
		notice string
	}{
		{"empty", Snapshot{}, "", ""},
		{"no kind", one(&SnapshotNode{Pane: &pane.Spec{}}), "", "a pane has no kind"},
		{"weights", one(&SnapshotNode{Children: []SnapshotNode{leafOf("shell")}}), "", "1 children and 0 weights"},
		{"zero weight", one(&SnapshotNode{Children: []SnapshotNode{leafOf("shell"), leafOf("agent")}, Weights: []float64{1, 0}}), "", "weight 0"},
		{"bad dir", one(&SnapshotNode{Dir: 7, Children: []SnapshotNode{leafOf("shell")}, Weights: []float64{1}}), "", "no direction 7"},
		{"every pane fails", one(&SnapshotNode{Pane: &pane.Spec{Kind: pane.KindMemory}}), pane.KindMemory, "without: memory pane"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := restoredDriver(t, &tc.snap, &fakeFactory{fail: map[pane.Kind]bool{tc.fail: true}})
			for _, want := range []string{"0 agent-1", "1 shell-1", "2 vault-1", "3 stats-1", tc.notice} {
				r.Script(t).WaitFor(want)
			}
		})
	}
}

func TestOnLayoutChangeFollowsEveryChange(t *testing.T) {
	ff := &fakeFactory{}
	calls := 0
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), OnLayoutChange: func() { calls++ }}, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	s := d.Script(t)
	for _, step := range []struct {
		name string
		keys []string
	}{
		{"split", []string{"Ctrl-b", "%"}},
		{"focus", []string{"Ctrl-b", "o"}},
		{"resize", []string{"Ctrl-b", "L"}},
		{"zoom", []string{"Ctrl-b", "z"}},
		{"unzoom", []string{"Ctrl-b", "z"}},
		{"close", []string{"Ctrl-b", "x", "y"}},
		{"show", []string{"Ctrl-b", "m"}},
	} {
		var before int
		_ = d.Do(func() { before = calls })
		s.Press(step.keys...)
		var after int
		_ = d.Do(func() { after = calls })
		if after == before {
			t.Errorf("%s: OnLayoutChange was not called", step.name)
		}
	}
}
