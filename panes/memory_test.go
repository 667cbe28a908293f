package panes

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/memory"
)

// memoryRig is a memory pane on a real store with a fixed clock.
type memoryRig struct {
	p      *MemoryPane
	store  *memory.Store
	opened []string
	notes  []string
}

func newMemoryRig(t *testing.T) *memoryRig {
	t.Helper()
	env := testEnv()
	clock := env.Now
	store, err := memory.Open(t.TempDir(), memory.Options{Now: func() time.Time { return clock().Add(-2 * time.Hour) }, Review: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ws := memory.ProjectScope("/home/u/proj")
	for _, m := range []memory.Memory{
		{Text: "The project uses tabs for indentation.", Kind: "preference", Scope: ws, Confidence: 0.9, Provenance: memory.Provenance{Source: "user", VaultIDs: []string{"ctx:5f2a9c1e7b3d"}}},
		{Text: "Deploys go through make release, never by hand.", Kind: "decision", Scope: ws, Confidence: 0.8, Provenance: memory.Provenance{Source: "user", Session: "s1", Turn: 3}},
		{Text: "Prefer [red]short[-] answers \x1b[2J.", Kind: "preference", Scope: memory.GlobalScope, Confidence: 0.7, Provenance: memory.Provenance{Source: "manual"}},
	} {
		if _, err := store.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if act, _, err := store.Promote(ctx, memory.Candidate{Text: "The parser lives in internal/parse.", Kind: "path", Confidence: 0.3}, ws, memory.Provenance{Source: "user"}); err != nil || act != "pending" {
		t.Fatalf("promote: %v %v", act, err)
	}
	r := &memoryRig{store: store}
	env.Notify = func(m string) { r.notes = append(r.notes, m) }
	r.p = NewMemoryPane(env, store, func(id string) { r.opened = append(r.opened, id) })
	return r
}

func (r *memoryRig) key(k tcell.Key, ch rune) {
	r.p.InputHandler()(tcell.NewEventKey(k, ch, 0), func(tview.Primitive) {})
}

func (r *memoryRig) typeText(s string) {
	for _, ch := range s {
		r.key(tcell.KeyRune, ch)
	}
}

func TestMemoryPaneGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		r := newMemoryRig(t)
		text := screenText(render(t, r.p, size[0], size[1]))
		if !strings.Contains(text, "[red]short[-]") || strings.Contains(text, "\x1b") {
			t.Fatalf("untrusted text not literal:\n%q", text)
		}
		golden(t, fmt.Sprintf("memory_%dx%d", size[0], size[1]), text)
	}
}

func TestMemoryPaneSearchProvenanceEditDelete(t *testing.T) {
	r := newMemoryRig(t)
	r.typeText("/")
	r.typeText("tabs indentation")
	text := screenText(render(t, r.p, 100, 20))
	first := strings.Split(text, "\n")[1]
	if !strings.Contains(first, "tabs for indentation") {
		t.Fatalf("search as you type: the first hit is %q\n%s", first, text)
	}
	r.key(tcell.KeyEnter, 0) // ends the search
	r.key(tcell.KeyEnter, 0) // provenance
	if len(r.opened) != 1 || r.opened[0] != "ctx:5f2a9c1e7b3d" {
		t.Fatalf("provenance opened %v", r.opened)
	}
	r.typeText("e")
	r.key(tcell.KeyCtrlU, 0)
	r.typeText("The project indents with two spaces.")
	r.key(tcell.KeyEnter, 0)
	ms, _ := r.store.List(context.Background(), memory.ProjectScope("/home/u/proj"))
	found := false
	for _, m := range ms {
		found = found || m.Text == "The project indents with two spaces."
	}
	if !found {
		t.Fatalf("edit did not update: %+v", ms)
	}
	r.key(tcell.KeyEscape, 0) // clear the search: every memory again
	before := r.store.Count()
	r.typeText("D")
	if r.store.Count() != before-1 {
		t.Fatalf("D deleted nothing: %d → %d", before, r.store.Count())
	}
}

func TestMemoryPaneApprovesAndRejectsCandidates(t *testing.T) {
	r := newMemoryRig(t)
	if !strings.Contains(r.p.Title(), "1 waiting for approval") {
		t.Fatalf("title %q", r.p.Title())
	}
	r.key(tcell.KeyTab, 0)
	text := screenText(render(t, r.p, 100, 20))
	if !strings.Contains(text, "path?") || !strings.Contains(text, "internal/parse") {
		t.Fatalf("queue:\n%s", text)
	}
	before := r.store.Count()
	r.typeText("a")
	if r.store.Count() != before+1 || len(r.store.Pending()) != 0 {
		t.Fatalf("approve: %d memories, %d pending", r.store.Count(), len(r.store.Pending()))
	}
	if _, _, err := r.store.Promote(context.Background(), memory.Candidate{Text: "We decided on SQLite maybe.", Kind: "decision", Confidence: 0.3}, memory.GlobalScope, memory.Provenance{}); err != nil {
		t.Fatal(err)
	}
	r.p.Refresh()
	r.typeText("D")
	if len(r.store.Pending()) != 0 || r.store.Count() != before+1 {
		t.Fatalf("reject: %d pending, %d memories", len(r.store.Pending()), r.store.Count())
	}
}

func TestMemoryPaneProvenanceWithoutABlock(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"deploys make release", "from user, session s1 turn 3 (no vault block backs it)"},
		{"short answers", "from manual (no vault block backs it)"},
	} {
		r := newMemoryRig(t)
		r.typeText("/" + tc.query)
		r.key(tcell.KeyEnter, 0) // ends the search
		r.key(tcell.KeyEnter, 0) // provenance
		if len(r.opened) != 0 || len(r.notes) == 0 || r.notes[len(r.notes)-1] != tc.want {
			t.Errorf("%s: opened %v, notes %q; want the note %q", tc.query, r.opened, r.notes, tc.want)
		}
	}
}
