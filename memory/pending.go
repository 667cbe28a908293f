package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// pendingFile holds the pending queue, next to the collections.
const pendingFile = "pending.json"

// Pending is a candidate waiting for the user's approval.
type Pending struct {
	// ID is "cand:" followed by 12 hex digits.
	ID string `json:"id"`
	// Candidate is what was proposed.
	Candidate Candidate `json:"candidate"`
	// Scope is where it would be stored.
	Scope string `json:"scope"`
	// Provenance says where it came from.
	Provenance Provenance `json:"provenance"`
	// Created is when it was queued.
	Created time.Time `json:"created"`
}

// Pending returns the queued candidates, oldest first.
func (s *Store) Pending() []Pending {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Pending(nil), s.pending...)
}

// Approve promotes pending candidate id as if the user had said it with
// full confidence, with its text replaced by editedText when that is not
// blank, and removes it from the queue. A forget candidate deletes, a
// duplicate is a no-op, as in Promote.
func (s *Store) Approve(ctx context.Context, id, editedText string) (Action, Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.pendingIndex(id)
	if err != nil {
		return "", Memory{}, err
	}
	p := s.pending[i]
	cand := p.Candidate
	if strings.TrimSpace(editedText) != "" {
		cand.Text = editedText
	}
	cand.Confidence = 1
	if !s.acceptable(cand.Text) {
		if strings.TrimSpace(cand.Text) == "" {
			return "", Memory{}, ErrEmpty
		}
		return "", Memory{}, ErrSensitive
	}
	act, m, err := s.promote(ctx, cand, p.Scope, p.Provenance)
	if err != nil {
		return "", Memory{}, err
	}
	return act, m, s.dropPending(i)
}

// Reject removes pending candidate id without storing it.
func (s *Store) Reject(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.pendingIndex(id)
	if err != nil {
		return err
	}
	return s.dropPending(i)
}

// pendingIndex returns the queue position of id.
func (s *Store) pendingIndex(id string) (int, error) {
	for i, p := range s.pending {
		if p.ID == id {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w: no pending candidate %q", ErrNotFound, id)
}

// queue appends a candidate to the pending queue and saves it.
func (s *Store) queue(cand Candidate, scope string, prov Provenance) (Pending, error) {
	cand.Text = strings.Join(strings.Fields(cand.Text), " ")
	p := Pending{ID: newID("cand:"), Candidate: cand, Scope: scope, Provenance: prov, Created: s.opts.Now()}
	s.pending = append(s.pending, p)
	if err := s.savePending(); err != nil {
		s.pending = s.pending[:len(s.pending)-1]
		return Pending{}, err
	}
	return p, nil
}

// dropPending removes queue entry i and saves the queue.
func (s *Store) dropPending(i int) error {
	s.pending = append(s.pending[:i:i], s.pending[i+1:]...)
	return s.savePending()
}

// loadPending reads the queue; a missing file is an empty queue.
func (s *Store) loadPending() error {
	data, err := os.ReadFile(filepath.Join(s.dir, pendingFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = json.Unmarshal(data, &s.pending)
	}
	if err != nil {
		return fmt.Errorf("memory: pending queue: %w", err)
	}
	return nil
}

// savePending writes the queue atomically (a temporary file renamed over
// the old one).
func (s *Store) savePending() error {
	data, err := json.MarshalIndent(s.pending, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(s.dir, pendingFile)
	tmp, err := os.CreateTemp(s.dir, pendingFile+".*")
	if err == nil {
		_, err = tmp.Write(append(data, '\n'))
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("memory: save pending queue: %w", err)
	}
	return nil
}
