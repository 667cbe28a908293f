package memory

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// changeLog records what OnChange hears.
type changeLog struct {
	mu  sync.Mutex
	got []Change
}

func (l *changeLog) hear(c Change) {
	l.mu.Lock()
	l.got = append(l.got, c)
	l.mu.Unlock()
}

func (l *changeLog) take() []Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

func TestOnChangeHearsSavesAndDeletes(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{})
	var log changeLog
	cancel := s.OnChange(log.hear)

	m := mustAdd(t, s, proj, "note", "the build uses make")
	if got := log.take(); len(got) != 1 || got[0].Op != ChangeSave || got[0].Memory.ID != m.ID ||
		got[0].Memory.Text != m.Text || got[0].Memory.Scope != proj || got[0].Applied {
		t.Fatalf("after Add heard %+v", got)
	}
	m.Text = "the build uses make and go"
	if _, err := s.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := log.take(); len(got) != 1 || got[0].Op != ChangeSave || got[0].Memory.Text != m.Text {
		t.Fatalf("after Update heard %+v", got)
	}
	// A move to the global scope: the save there, then the delete here.
	m.Scope = GlobalScope
	moved, err := s.Update(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	got := log.take()
	if len(got) != 2 || got[0].Op != ChangeSave || got[0].Memory.Scope != GlobalScope ||
		got[1].Op != ChangeDelete || got[1].Memory.Scope != proj || got[1].Memory.ID != m.ID {
		t.Fatalf("after a move heard %+v", got)
	}
	if err := s.Delete(moved.ID); err != nil {
		t.Fatal(err)
	}
	if got := log.take(); len(got) != 1 || got[0].Op != ChangeDelete || got[0].Memory.ID != moved.ID ||
		got[0].Memory.Text != m.Text {
		t.Fatalf("after Delete heard %+v", got)
	}
	// Promotion saves too.
	if act, _, err := s.Promote(ctx, Candidate{Text: "we deploy on fridays", Kind: "decision", Confidence: 0.9}, proj, Provenance{Source: SourceTool}); err != nil || act != ActionAdd {
		t.Fatalf("Promote: %v, %v", act, err)
	}
	if got := log.take(); len(got) != 1 || got[0].Op != ChangeSave {
		t.Fatalf("after Promote heard %+v", got)
	}
	cancel()
	mustAdd(t, s, proj, "note", "nobody hears this")
	if got := log.take(); len(got) != 0 {
		t.Fatalf("after cancel heard %+v", got)
	}
}

func TestApplyKeepsIDAndLaterChangeWins(t *testing.T) {
	ctx := context.Background()
	src := mustOpen(t, t.TempDir(), Options{})
	dst := mustOpen(t, t.TempDir(), Options{})
	var log changeLog
	dst.OnChange(log.hear)

	m := mustAdd(t, src, proj, "path", "the API server listens on port 8080")
	if ok, err := dst.Apply(ctx, Change{Op: ChangeSave, Memory: m}); err != nil || !ok {
		t.Fatalf("Apply save: %v, %v", ok, err)
	}
	got, err := dst.Get(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != m.ID || got.Text != m.Text || got.Scope != m.Scope || got.Kind != m.Kind ||
		!got.Created.Equal(m.Created) || !got.Updated.Equal(m.Updated) {
		t.Fatalf("applied %+v, want %+v", got, m)
	}
	if hits, err := dst.Search(ctx, "API server port", []string{proj}, 1); err != nil || len(hits) != 1 || hits[0].ID != m.ID {
		t.Fatalf("search after Apply: %+v, %v", hits, err)
	}
	if heard := log.take(); len(heard) != 1 || !heard[0].Applied || heard[0].Op != ChangeSave {
		t.Fatalf("Apply heard as %+v, want one applied save", heard)
	}

	// An older version of the memory is skipped; a newer one replaces it.
	older := m
	older.Text, older.Updated = "stale text", m.Updated.Add(-time.Hour)
	if ok, err := dst.Apply(ctx, Change{Op: ChangeSave, Memory: older}); err != nil || ok {
		t.Fatalf("Apply of an older save: %v, %v", ok, err)
	}
	newer := m
	newer.Text, newer.Updated = "the API server listens on port 9090", m.Updated.Add(time.Hour)
	if ok, err := dst.Apply(ctx, Change{Op: ChangeSave, Memory: newer}); err != nil || !ok {
		t.Fatalf("Apply of a newer save: %v, %v", ok, err)
	}
	// The delete of the version before it is skipped, of it applied.
	if ok, err := dst.Apply(ctx, Change{Op: ChangeDelete, Memory: m}); err != nil || ok {
		t.Fatalf("Apply of a stale delete: %v, %v", ok, err)
	}
	if got, _ := dst.Get(m.ID); got.Text != newer.Text {
		t.Fatalf("after the stale delete: %+v", got)
	}
	log.take()
	if ok, err := dst.Apply(ctx, Change{Op: ChangeDelete, Memory: newer}); err != nil || !ok {
		t.Fatalf("Apply delete: %v, %v", ok, err)
	}
	if _, err := dst.Get(m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after Apply delete: %v", err)
	}
	if heard := log.take(); len(heard) != 1 || !heard[0].Applied || heard[0].Op != ChangeDelete {
		t.Fatalf("Apply delete heard as %+v", heard)
	}
	if ok, err := dst.Apply(ctx, Change{Op: ChangeDelete, Memory: newer}); err != nil || ok {
		t.Fatalf("Apply of a delete of nothing: %v, %v", ok, err)
	}

	for _, bad := range []struct {
		c    Change
		want error
	}{
		{Change{Op: ChangeSave, Memory: Memory{ID: "x1", Text: "t", Scope: proj}}, ErrBadID},
		{Change{Op: ChangeSave, Memory: Memory{ID: "mem:", Text: "t", Scope: proj}}, ErrBadID},
		{Change{Op: ChangeSave, Memory: Memory{ID: "mem:abc", Text: "t", Scope: "nowhere"}}, ErrBadScope},
		{Change{Op: ChangeSave, Memory: Memory{ID: "mem:abc", Text: "  ", Scope: proj}}, ErrEmpty},
		{Change{Op: ChangeSave, Memory: Memory{ID: "mem:abc", Text: "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", Scope: proj}}, ErrSensitive},
	} {
		if _, err := dst.Apply(ctx, bad.c); !errors.Is(err, bad.want) {
			t.Errorf("Apply(%+v) = %v, want %v", bad.c, err, bad.want)
		}
	}
	if n := dst.Count(); n != 0 {
		t.Fatalf("%d memories after refused changes", n)
	}
}
