package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a test clock that advances one second per reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// mustOpen opens a store in dir with a test clock unless opts has one.
func mustOpen(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	if opts.Now == nil {
		opts.Now = (&clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}).now
	}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustAdd adds a memory with text to scope.
func mustAdd(t testing.TB, s *Store, scope, kind, text string) Memory {
	t.Helper()
	m, err := s.Add(context.Background(), Memory{Text: text, Kind: kind, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var proj = ProjectScope("/home/dev/src/kws")

func TestPersistenceAcrossReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, Options{})
	prov := Provenance{Session: "20260102-030405-abc123", Turn: 7, VaultIDs: []string{"CTX:5F2A9C1E7B3D"}, Source: SourceUser}
	want, err := s.Add(ctx, Memory{Text: "  the API server\nlistens on port 8080 ", Kind: "path", Scope: proj, Confidence: 0.8, Provenance: prov})
	if err != nil {
		t.Fatal(err)
	}
	if want.Text != "the API server listens on port 8080" || want.Provenance.VaultIDs[0] != "ctx:5f2a9c1e7b3d" {
		t.Fatalf("Add did not clean the memory: %+v", want)
	}
	g := mustAdd(t, s, GlobalScope, "preference", "I prefer table-driven tests")

	r := mustOpen(t, dir, Options{})
	got, err := r.Get(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text || got.Kind != want.Kind || got.Scope != proj || got.Confidence != 0.8 ||
		!got.Created.Equal(want.Created) || !got.Updated.Equal(want.Updated) ||
		got.Provenance.Session != prov.Session || got.Provenance.Turn != 7 || got.Provenance.Source != SourceUser ||
		len(got.Provenance.VaultIDs) != 1 || got.Provenance.VaultIDs[0] != "ctx:5f2a9c1e7b3d" {
		t.Fatalf("after reopen got %+v, want %+v", got, want)
	}
	if n := r.Count(); n != 2 {
		t.Fatalf("Count after reopen = %d, want 2", n)
	}
	if sc := r.Scopes(); len(sc) != 2 || sc[0] != GlobalScope || sc[1] != proj {
		t.Fatalf("Scopes = %v", sc)
	}
	hits, err := r.Search(ctx, "table driven tests", nil, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != g.ID {
		t.Fatalf("Search after reopen: %+v %v", hits, err)
	}
	if err := r.Delete(g.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := mustOpen(t, dir, Options{}).Get(g.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted memory came back: %v", err)
	}
}

func TestScopesAreIsolated(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{})
	other := ProjectScope("/home/dev/src/other")
	a := mustAdd(t, s, proj, "note", "the parser lives in internal/parse")
	b := mustAdd(t, s, other, "note", "the parser lives in internal/parse")
	c := mustAdd(t, s, GlobalScope, "note", "commit messages are short")
	tests := []struct {
		scopes []string
		want   []string
	}{
		{[]string{proj}, []string{a.ID}},
		{[]string{other}, []string{b.ID}},
		{[]string{GlobalScope}, []string{c.ID}},
		{[]string{ProjectScope("/nowhere")}, nil},
	}
	for _, tt := range tests {
		hits, err := s.Search(ctx, "where is the parser", tt.scopes, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.ID)
		}
		if len(ids) != len(tt.want) || (len(ids) > 0 && ids[0] != tt.want[0]) {
			t.Errorf("Search in %v = %v, want %v", tt.scopes, ids, tt.want)
		}
		list, err := s.List(ctx, tt.scopes[0])
		if err != nil || len(list) != len(tt.want) {
			t.Errorf("List(%s) = %d memories, %v; want %d", tt.scopes[0], len(list), err, len(tt.want))
		}
	}
	if n := s.Count(proj, GlobalScope); n != 2 {
		t.Errorf("Count(proj, global) = %d, want 2", n)
	}
	if ProjectScope("/a/kws") == ProjectScope("/b/kws") {
		t.Error("two workspaces with the same name share a scope")
	}
}

func TestAddUpdateDeleteErrors(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{})
	tests := []struct {
		name string
		m    Memory
		want error
	}{
		{"blank", Memory{Text: " \n ", Scope: GlobalScope}, ErrEmpty},
		{"secret", Memory{Text: "the deploy key is AKIAABCDEFGHIJKLMNOP", Scope: GlobalScope}, ErrSensitive},
		{"bad scope", Memory{Text: "a fact", Scope: "team"}, ErrBadScope},
		{"empty project", Memory{Text: "a fact", Scope: "project:"}, ErrBadScope},
	}
	for _, tt := range tests {
		if _, err := s.Add(ctx, tt.m); !errors.Is(err, tt.want) {
			t.Errorf("%s: Add error %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := s.Add(ctx, Memory{Text: "a fact", Scope: GlobalScope, Provenance: Provenance{VaultIDs: []string{"nope"}}}); err == nil {
		t.Error("a malformed vault id was accepted")
	}
	m := mustAdd(t, s, GlobalScope, "", "the CI runs on Go 1.26")
	if m.Kind != "note" || m.Confidence != 1 || m.Provenance.Source != SourceManual || m.ID[:4] != "mem:" {
		t.Errorf("defaults not applied: %+v", m)
	}
	m.Text, m.Scope = "the CI runs on Go 1.27", proj
	u, err := s.Update(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Created.Equal(m.Created) || !u.Updated.After(m.Created) {
		t.Errorf("Update times: created %v updated %v", u.Created, u.Updated)
	}
	if s.Count(GlobalScope) != 0 || s.Count(proj) != 1 {
		t.Errorf("Update did not move the memory: global %d, project %d", s.Count(GlobalScope), s.Count(proj))
	}
	if got, _ := s.Get(strings.TrimPrefix(m.ID, "mem:")); got.Text != "the CI runs on Go 1.27" {
		t.Errorf("Get after Update = %+v", got)
	}
	if _, err := s.Update(ctx, Memory{ID: "mem:000000000000", Text: "x y", Scope: GlobalScope}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Update of unknown id: %v", err)
	}
	if err := s.Delete("mem:000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete of unknown id: %v", err)
	}
	if _, err := s.Search(ctx, "  ", nil, 3); !errors.Is(err, ErrEmpty) {
		t.Errorf("blank search: %v", err)
	}
}

// TestEmbedderIDIsRequired: an embedder without its name could not tell
// its vectors from another's.
func TestEmbedderIDIsRequired(t *testing.T) {
	if _, err := Open(t.TempDir(), Options{Embedder: HashEmbedder(64)}); !errors.Is(err, ErrNoEmbedderID) {
		t.Fatalf("Open with an unnamed embedder: %v", err)
	}
}

func TestIDsNeverShareAFileSlot(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, Options{})
	m := mustAdd(t, s, proj, "note", "the vault is one bbolt file")
	// The slot layout is chromem-go's: pin it, since freeID relies on it.
	if _, err := os.Stat(filepath.Join(dir, slot(proj), slot(m.ID)+".gob")); err != nil {
		t.Fatalf("memory not where freeID looks: %v", err)
	}
	if id := s.freeID(proj, m.ID); id == m.ID || !strings.HasPrefix(id, "mem:") {
		t.Fatalf("freeID kept a taken slot: %s", id)
	}
	if id := s.freeID(GlobalScope, m.ID); id != m.ID {
		t.Fatalf("freeID replaced a free id: %s", id)
	}
}

// TestUnknownKindIsRefused: a kind that is not one of Kinds is refused by
// every way in, with an error naming the valid kinds, and nothing is
// stored or queued.
func TestUnknownKindIsRefused(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{Review: true})
	prov := Provenance{Source: SourceManual}
	tests := []struct {
		name string
		do   func() error
	}{
		{"Add", func() error {
			_, err := s.Add(ctx, Memory{Text: "we deploy on Fridays", Kind: "bogus", Scope: proj})
			return err
		}},
		{"Promote", func() error {
			_, _, err := s.Promote(ctx, Candidate{Text: "we deploy on Fridays", Kind: "bogus", Confidence: 1}, proj, prov)
			return err
		}},
		{"Promote below the threshold", func() error {
			_, _, err := s.Promote(ctx, Candidate{Text: "we deploy on Fridays", Kind: "bogus", Confidence: 0.4}, proj, prov)
			return err
		}},
		{"Propose", func() error {
			_, _, err := s.Propose(ctx, Candidate{Text: "we deploy on Fridays", Kind: "Note"}, GlobalScope, prov)
			return err
		}},
	}
	for _, tt := range tests {
		err := tt.do()
		if !errors.Is(err, ErrBadKind) || !strings.Contains(err.Error(), "note, remember, preference, decision, correction, rename, path") {
			t.Errorf("%s with an unknown kind: %v", tt.name, err)
		}
	}
	if s.Count() != 0 || len(s.Pending()) != 0 {
		t.Fatalf("an unknown kind was stored (%d) or queued (%d)", s.Count(), len(s.Pending()))
	}
	for _, kind := range append([]string{""}, Kinds...) {
		if act, _, err := s.Promote(ctx, Candidate{Text: "the " + kind + " kind is fine", Kind: kind, Confidence: 1}, proj, prov); err != nil || act == ActionNoop {
			t.Errorf("kind %q: %s %v", kind, act, err)
		}
	}
}
