package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// quiet sets the times of the store dir's scope folders to one fixed time
// in the past, as if nothing had changed them since, so Open trusts them.
func quiet(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range entries {
		if e.IsDir() {
			if err := os.Chtimes(filepath.Join(dir, e.Name()), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// allTexts returns the texts of every memory of s, sorted.
func allTexts(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, sc := range s.Scopes() {
		out = append(out, listTexts(t, s, sc)...)
	}
	slices.Sort(out)
	return out
}

// TestSnapshot: once its folders are quiet, Open writes a snapshot and
// the next Open takes the memories from it (a memory file changed behind
// the store's back does not show); a folder the store changes since is
// read from its files again, and the others still come from the
// snapshot; a folder changed within the racy window is not recorded; a
// damaged snapshot costs nothing but time.
func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, Options{})
	g := mustAdd(t, s, GlobalScope, "preference", "answer in British English")
	p := mustAdd(t, s, proj, "note", "the API server listens on port 8080")
	s.Close()
	want := allTexts(t, s)
	snapPath := filepath.Join(dir, snapshotFile)

	// Changed within the racy window: no snapshot.
	mustOpen(t, dir, Options{}).Close()
	if snap, _ := readSnapshot(snapPath); len(snap) != 0 {
		t.Fatalf("a snapshot of folders changed just now: %d folders", len(snap))
	}

	quiet(t, dir)
	mustOpen(t, dir, Options{}).Close()
	snap, err := readSnapshot(snapPath)
	if err != nil || len(snap) != 2 || len(snap[slot(GlobalScope)].docs) != 1 || len(snap[slot(proj)].docs) != 1 {
		t.Fatalf("snapshot of a quiet store: %d folders, %v", len(snap), err)
	}
	if d := snap[slot(proj)].docs[0]; d.ID != p.ID || d.Content != p.Text || d.Metadata[keyEmbedder] != HashEmbedderID(DefaultDims) ||
		!slices.Equal(d.Embedding, hashEmbed(p.Text, DefaultDims)) {
		t.Fatalf("the snapshot holds %+v", d)
	}

	// Garble the project memory's file without the store, and put the
	// folder's time back: the snapshot is what Open reads.
	file := docFile(dir, p)
	if err := os.WriteFile(file, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	quiet(t, dir)
	s = mustOpen(t, dir, Options{})
	if got := allTexts(t, s); !slices.Equal(got, want) || len(s.Damaged()) != 0 {
		t.Fatalf("from the snapshot: %q, damage %v", got, s.Damaged())
	}
	if hits, err := s.Search(ctx, "which port does the API server use", []string{proj}, 1); err != nil || len(hits) != 1 || hits[0].ID != p.ID {
		t.Fatalf("search from the snapshot: %+v %v", hits, err)
	}
	// A change through the store: its folder is read from the files (the
	// garbled one is quarantined), the global one still from the snapshot.
	added := mustAdd(t, s, proj, "note", "integration tests need docker running")
	s.Close()
	s = mustOpen(t, dir, Options{})
	if got := allTexts(t, s); !slices.Equal(got, []string{g.Text, added.Text}) || len(s.Damaged()) != 1 || s.Damaged()[0].File != file {
		t.Fatalf("after a change: %q, damage %v", got, s.Damaged())
	}
	s.Close()

	// A damaged snapshot: every memory is read from its file, and the
	// snapshot rewritten.
	if err := garble(snapPath); err != nil {
		t.Fatal(err)
	}
	quiet(t, dir)
	s = mustOpen(t, dir, Options{})
	if got := allTexts(t, s); !slices.Equal(got, []string{g.Text, added.Text}) {
		t.Fatalf("with a damaged snapshot: %q", got)
	}
	if snap, err := readSnapshot(snapPath); err != nil || len(snap[slot(proj)].docs) != 1 {
		t.Fatalf("the damaged snapshot was not rewritten: %v", err)
	}
	// A memory removed by another store: gone from the next Open.
	if err := s.Delete(added.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dir, Options{})
	if got := allTexts(t, s); !slices.Equal(got, []string{g.Text}) {
		t.Fatalf("after a delete: %q", got)
	}
}
