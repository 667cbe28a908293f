package memory

import (
	"context"
	"errors"
	"testing"
)

func TestPendingQueue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, Options{Review: true})
	prov := Provenance{Session: "s9", Turn: 2, Source: SourceSidecar}
	var ids []string
	for _, c := range []Candidate{
		{"I like short commit messages", "preference", 0.5},
		{"the linter is golangci-lint", "remember", 0.4},
		{"we deploy on Fridays", KindForget, 0.3},
	} {
		act, m, err := s.Promote(ctx, c, proj, prov)
		if err != nil || act != ActionPending || m.ID[:5] != "cand:" {
			t.Fatalf("Promote(%q) = %s %+v %v", c.Text, act, m, err)
		}
		ids = append(ids, m.ID)
	}
	mustAdd(t, s, proj, "decision", "we deploy on Fridays")
	if s.Count(proj) != 1 {
		t.Fatal("pending candidates were stored")
	}

	// The queue survives a reopen.
	s = mustOpen(t, dir, Options{Review: true})
	p := s.Pending()
	if len(p) != 3 || p[0].ID != ids[0] || p[0].Candidate.Text != "I like short commit messages" ||
		p[0].Scope != proj || p[0].Provenance.Session != "s9" {
		t.Fatalf("Pending after reopen: %+v", p)
	}

	tests := []struct {
		name   string
		do     func() (Action, Memory, error)
		action Action
		text   string
		count  int
	}{
		{"approve with edit", func() (Action, Memory, error) {
			return s.Approve(ctx, ids[0], "I prefer commit messages under 60 characters")
		}, ActionAdd, "I prefer commit messages under 60 characters", 2},
		{"reject", func() (Action, Memory, error) { return "", Memory{}, s.Reject(ids[1]) }, "", "", 2},
		{"approve a forget", func() (Action, Memory, error) { return s.Approve(ctx, ids[2], "") }, ActionDelete, "we deploy on Fridays", 1},
	}
	for _, tt := range tests {
		act, m, err := tt.do()
		if err != nil || act != tt.action || m.Text != tt.text || s.Count(proj) != tt.count {
			t.Fatalf("%s: %s %q %v, %d memories; want %s %q, %d", tt.name, act, m.Text, err, s.Count(proj), tt.action, tt.text, tt.count)
		}
	}
	list, _ := s.List(ctx, proj)
	if len(list) != 1 || list[0].Confidence != 1 || list[0].Provenance.Session != "s9" {
		t.Fatalf("approved memory: %+v", list)
	}
	if len(s.Pending()) != 0 || len(mustOpen(t, dir, Options{}).Pending()) != 0 {
		t.Fatal("the queue is not empty after approve and reject")
	}
	if _, _, err := s.Approve(ctx, ids[0], ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("approving twice: %v", err)
	}
	if err := s.Reject("cand:000000000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rejecting an unknown id: %v", err)
	}
}

func TestApproveRefusesASecretEdit(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{Review: true})
	_, m, _ := s.Promote(ctx, Candidate{"the staging host is db-staging", "remember", 0.4}, GlobalScope, Provenance{Source: SourceUser})
	if _, _, err := s.Approve(ctx, m.ID, "the staging password is hunter22"); !errors.Is(err, ErrSensitive) {
		t.Fatalf("Approve with a secret: %v", err)
	}
	if len(s.Pending()) != 1 {
		t.Fatal("a refused approval dropped the candidate")
	}
}
