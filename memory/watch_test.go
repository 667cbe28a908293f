package memory

import (
	"context"
	"testing"
)

func TestWatchHearsEveryChangeOfThePendingQueue(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{Review: true})
	var heard []int
	cancel := s.Watch(func() { heard = append(heard, len(s.Pending())) })
	_, a, err := s.Promote(ctx, Candidate{"I like short commit messages", "preference", 0.5}, proj, Provenance{})
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := s.Propose(ctx, Candidate{"answers in English", "preference", 0.9}, GlobalScope, Provenance{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Approve(ctx, a.ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Reject(b.ID); err != nil {
		t.Fatal(err)
	}
	if got := heard; len(got) != 4 || got[0] != 1 || got[1] != 2 || got[2] != 1 || got[3] != 0 {
		t.Fatalf("the watcher heard queue lengths %v, want [1 2 1 0]", got)
	}
	cancel()
	if _, _, err := s.Promote(ctx, Candidate{"the linter is golangci-lint", "remember", 0.4}, proj, Provenance{}); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 4 {
		t.Fatalf("a cancelled watcher heard a change: %v", heard)
	}
}
