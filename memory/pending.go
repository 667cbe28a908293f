package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The pending queue is one JSON file that several processes share (the
// workstation, kws run, kws memory approve and reject). Every change is a
// read-modify-write of the file under an exclusive flock of pendingLock,
// so no process writes back a queue it read before another's change; the
// file itself is replaced atomically, so readers need no lock.
const (
	// pendingFile holds the pending queue, next to the collections.
	pendingFile = "pending.json"
	// pendingLock is the lock file that serializes changes to the queue.
	pendingLock = "pending.lock"
)

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

// Pending returns the queued candidates, oldest first, as the file holds
// them now: changes by other processes show. A queue file that cannot be
// read gives the last queue read.
func (s *Store) Pending() []Pending {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	fi, err := os.Stat(filepath.Join(s.dir, pendingFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.cacheFile, s.cache = nil, nil
	case err != nil:
	case s.cacheFile == nil || !os.SameFile(fi, s.cacheFile) || !fi.ModTime().Equal(s.cacheFile.ModTime()) || fi.Size() != s.cacheFile.Size():
		if q, err := s.readPending(); err == nil {
			s.cacheFile, s.cache = fi, q
		}
	}
	return slices.Clone(s.cache)
}

// Propose queues cand for the user's approval in scope whatever its
// confidence, as for a global memory a model proposes, which would
// otherwise reach every workspace's prompts unseen. Blank text or a secret
// is a noop; so is a near-duplicate of a memory of scope (the returned
// Memory is that memory) or of a candidate already waiting for scope (the
// returned Memory carries its pending id). A queued candidate returns
// ActionPending and a Memory carrying its pending id.
func (s *Store) Propose(ctx context.Context, cand Candidate, scope string, prov Provenance) (Action, Memory, error) {
	if err := checkCandidate(cand, scope); err != nil {
		return "", Memory{}, err
	}
	cand.Text = strings.Join(strings.Fields(cand.Text), " ")
	if !s.acceptable(cand.Text) {
		return ActionNoop, Memory{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	hits, err := s.search(ctx, cand.Text, []string{scope}, duplicateCandidates)
	if err != nil {
		return "", Memory{}, err
	}
	if dup := s.firstDuplicate(cand.Text, hits); dup.ID != "" {
		return ActionNoop, dup.Memory, nil
	}
	p := Pending{ID: newID("cand:"), Candidate: cand, Scope: scope, Provenance: prov, Created: s.opts.Now()}
	act := ActionPending
	err = s.changePending(func(q []Pending) ([]Pending, error) {
		for _, w := range q {
			if w.Scope == scope && strings.EqualFold(w.Candidate.Text, cand.Text) {
				p, act = w, ActionNoop
				return q, nil
			}
		}
		return append(q, p), nil
	})
	if err != nil {
		return "", Memory{}, err
	}
	return act, p.memory(), nil
}

// memory is p as the Memory Promote and Propose return for it: its
// pending id, text and kind.
func (p Pending) memory() Memory {
	return Memory{ID: p.ID, Text: p.Candidate.Text, Kind: p.Candidate.Kind, Scope: p.Scope,
		Confidence: p.Candidate.Confidence, Created: p.Created, Updated: p.Created, Provenance: p.Provenance}
}

// Approve promotes pending candidate id as if the user had said it with
// full confidence, with its text replaced by editedText when that is not
// blank, and removes it from the queue. A forget candidate deletes, a
// duplicate is a no-op, as in Promote.
func (s *Store) Approve(ctx context.Context, id, editedText string) (Action, Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		act Action
		m   Memory
	)
	err := s.changePending(func(q []Pending) ([]Pending, error) {
		i, err := pendingIndex(q, id)
		if err != nil {
			return nil, err
		}
		p := q[i]
		cand := p.Candidate
		if strings.TrimSpace(editedText) != "" {
			cand.Text = editedText
		}
		cand.Confidence = 1
		if !s.acceptable(cand.Text) {
			if strings.TrimSpace(cand.Text) == "" {
				return nil, ErrEmpty
			}
			return nil, ErrSensitive
		}
		if act, m, err = s.promote(ctx, cand, p.Scope, p.Provenance); err != nil {
			return nil, err
		}
		return slices.Delete(q, i, i+1), nil
	})
	if err != nil {
		return "", Memory{}, err
	}
	return act, m, nil
}

// Reject removes pending candidate id without storing it.
func (s *Store) Reject(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changePending(func(q []Pending) ([]Pending, error) {
		i, err := pendingIndex(q, id)
		if err != nil {
			return nil, err
		}
		return slices.Delete(q, i, i+1), nil
	})
}

// pendingIndex returns the queue position of id.
func pendingIndex(q []Pending, id string) (int, error) {
	for i, p := range q {
		if p.ID == id {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w: no pending candidate %q", ErrNotFound, id)
}

// queue appends a candidate to the pending queue.
func (s *Store) queue(cand Candidate, scope string, prov Provenance) (Pending, error) {
	cand.Text = strings.Join(strings.Fields(cand.Text), " ")
	p := Pending{ID: newID("cand:"), Candidate: cand, Scope: scope, Provenance: prov, Created: s.opts.Now()}
	err := s.changePending(func(q []Pending) ([]Pending, error) { return append(q, p), nil })
	if err != nil {
		return Pending{}, err
	}
	return p, nil
}

// changePending applies change to the queue as the file holds it and
// writes the result, all under the queue's lock, which other processes
// take too. An error from change leaves the file as it was.
func (s *Store) changePending(change func([]Pending) ([]Pending, error)) error {
	lock, err := os.OpenFile(filepath.Join(s.dir, pendingLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("memory: pending queue: %w", err)
	}
	defer lock.Close() // closing releases the lock
	if err := flock(lock); err != nil {
		return fmt.Errorf("memory: lock the pending queue: %w", err)
	}
	q, err := s.readPending()
	if err != nil {
		return err
	}
	if q, err = change(q); err != nil {
		return err
	}
	data, err := json.MarshalIndent(q, "", "  ")
	if err == nil {
		err = writeFileAtomic(filepath.Join(s.dir, pendingFile), append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("memory: save pending queue: %w", err)
	}
	s.pendingChanged()
	return nil
}

// flock takes an exclusive lock on f, waiting for other holders.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// readPending reads the queue file; a missing file is an empty queue.
func (s *Store) readPending() ([]Pending, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, pendingFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var q []Pending
	if err == nil {
		err = json.Unmarshal(data, &q)
	}
	if err != nil {
		return nil, fmt.Errorf("memory: pending queue: %w", err)
	}
	return q, nil
}

// checkPending is Open's look at the queue file: one that does not parse
// is quarantined, like a damaged memory, and the queue starts empty.
func (s *Store) checkPending() {
	if _, err := s.readPending(); err != nil {
		s.damage = append(s.damage, quarantine(s.dir, filepath.Join(s.dir, pendingFile), err))
	}
}
