package panes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
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

// gatedEmbedder is HashEmbedder under the name "test:gated" that embeds
// one text and then holds each further one until release is closed or
// the call's context ends; released, it fails them with fail when that
// is set.
type gatedEmbedder struct {
	calls   atomic.Int64
	release chan struct{}
	fail    error
}

func (g *gatedEmbedder) embed(ctx context.Context, text string) ([]float32, error) {
	if g.calls.Add(1) > 1 {
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if g.fail != nil {
			return nil, g.fail
		}
	}
	return memory.HashEmbedder(memory.DefaultDims)(ctx, text)
}

// reembedRig is a memory pane on a store of three memories re-embedding
// them with g, once the first is re-embedded and g holds the others.
func reembedRig(t *testing.T, g *gatedEmbedder) (*MemoryPane, *memory.Store) {
	t.Helper()
	env := testEnv()
	now := func() time.Time { return env.Now().Add(-2 * time.Hour) }
	dir := t.TempDir()
	old, err := memory.Open(dir, memory.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"The project uses tabs for indentation.", "Deploys go through make release.", "Prefer short answers."} {
		if _, err := old.Add(context.Background(), memory.Memory{Text: text, Kind: "preference", Scope: memory.GlobalScope, Provenance: memory.Provenance{Source: "user"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	store, err := memory.Open(dir, memory.Options{Now: now, Embedder: g.embed, EmbedderID: "test:gated"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	waitReembedding(t, store, func(r memory.Reembedding) bool { return r.Done >= 1 || !r.Running })
	return NewMemoryPane(testEnv(), store, func(string) {}), store
}

// waitReembedding waits, through the store's Watch, until its
// re-embedding satisfies until.
func waitReembedding(t *testing.T, s *memory.Store, until func(memory.Reembedding) bool) {
	t.Helper()
	heard := make(chan struct{}, 1)
	defer s.Watch(func() {
		select {
		case heard <- struct{}{}:
		default:
		}
	})()
	timeout := time.After(time.Minute)
	for r := s.Reembedding(); !until(r); r = s.Reembedding() {
		select {
		case <-heard:
		case <-timeout:
			t.Fatalf("the re-embedding never got there: %+v", r)
		}
	}
}

// TestMemoryPaneShowsReembedding shows the re-embedding's progress on
// the pane's bottom line while it runs, nothing once it is done, and the
// whole failure, literally and wrapped on a narrow pane, when the
// embedder fails.
func TestMemoryPaneShowsReembedding(t *testing.T) {
	g := &gatedEmbedder{release: make(chan struct{})}
	p, store := reembedRig(t, g)
	text := screenText(render(t, p, 80, 12))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if got := strings.TrimSpace(lines[len(lines)-1]); got != "re-embedding 1/3 for test:gated" {
		t.Fatalf("the bottom line is %q, not the progress:\n%s", got, text)
	}
	golden(t, "memory_reembedding_80x12", text)
	close(g.release)
	waitReembedding(t, store, func(r memory.Reembedding) bool { return !r.Running })
	p.Refresh()
	if text := screenText(render(t, p, 80, 12)); strings.Contains(text, "re-embed") {
		t.Fatalf("a finished re-embedding still shows:\n%s", text)
	}

	// Narrow, the failure wraps over the bottom lines, down to its reason.
	lines = failedReembedLines(t, "embeddings server says: [red]quota[-] exceeded \x1b[2J", 60)
	text = strings.Join(lines, "\n")
	var failure []string
	for _, l := range lines[len(lines)-4:] {
		failure = append(failure, strings.TrimSpace(l))
	}
	bottom := strings.Join(failure, " ")
	for _, want := range []string{"re-embedding for test:gated stopped at 1/3: ", "embeddings server says: [red]quota[-] exceeded"} {
		if !strings.Contains(bottom, want) {
			t.Errorf("the failure lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(lines[1], "Deploys go through make release.") {
		t.Errorf("the failure hides the memories:\n%s", text)
	}
	if strings.Contains(text, "\x1b") || strings.Contains(text, "[2J") {
		t.Errorf("the server's escape sequence reaches the screen: %q", bottom)
	}

	// An error longer than the bottom lines keeps its start and its
	// reason, at the end.
	long := "embeddings from http://embed.example/v1/embeddings: " + strings.Repeat("upstream said busy; ", 12) + "the reason: quota exceeded"
	lines = failedReembedLines(t, long, 40)
	if first, last := lines[len(lines)-4], lines[len(lines)-1]; !strings.Contains(first, "re-embedding for") || !strings.Contains(last, "quota exceeded") {
		t.Errorf("a long failure lacks its start or its reason:\n%s", strings.Join(lines, "\n"))
	}
}

// failedReembedLines renders, width columns by 12 rows, the memory pane
// of a store whose re-embedding failed with the error text, line by line.
func failedReembedLines(t *testing.T, text string, width int) []string {
	t.Helper()
	g := &gatedEmbedder{release: make(chan struct{}), fail: errors.New(text)}
	p, store := reembedRig(t, g)
	close(g.release)
	waitReembedding(t, store, func(r memory.Reembedding) bool { return !r.Running })
	p.Refresh()
	return strings.Split(strings.TrimSuffix(screenText(render(t, p, width, 12)), "\n"), "\n")
}

// TestEmptyMemoryPaneWrapsItsHint: an empty memory pane's hint wraps at
// a narrow width instead of being cut mid-word (issue 26, item 12).
func TestEmptyMemoryPaneWrapsItsHint(t *testing.T) {
	store, err := memory.Open(t.TempDir(), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewMemoryPane(testEnv(), store, func(string) {})
	text := screenText(render(t, p, 30, 12))
	flat := strings.Join(strings.Fields(text), " ")
	if !strings.Contains(flat, `No memories yet: say "remember …" to an agent, or kws memory add.`) {
		t.Errorf("the empty pane's hint is cut at 30 columns:\n%s", text)
	}
}
