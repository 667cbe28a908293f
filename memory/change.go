package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrBadID is returned by Apply for a memory id that is not "mem:"
// followed by a name, or whose file slot in its scope another memory
// holds (see freeID).
var ErrBadID = errors.New("memory: bad memory id")

// ChangeOp is what a Change did to a memory.
type ChangeOp string

// The operations of a Change.
const (
	// ChangeSave stored a memory, new or changed.
	ChangeSave ChangeOp = "save"
	// ChangeDelete removed a memory.
	ChangeDelete ChangeOp = "delete"
)

// Change is one memory saved or deleted, as OnChange reports it and
// Apply takes it.
type Change struct {
	// Op is ChangeSave or ChangeDelete.
	Op ChangeOp `json:"op"`
	// Memory is the memory as it was saved, or as it was when it was
	// deleted; its scope and id name the memory.
	Memory Memory `json:"memory"`
	// Applied marks a change made by Apply, one that came from elsewhere
	// (another member of a team): whoever shares this store's changes
	// does not share it back.
	Applied bool `json:"-"`
}

// OnChange registers fn to hear each memory this store saves or deletes,
// whatever made the change (Add, Update, Delete, Promote, Approve, Apply).
// Re-embedding, which changes no memory's content, is no change. It
// returns a function that unregisters fn. fn runs on the goroutine that
// made the change, once the change is written and while the store is
// locked, so that changes are heard in the order they were made; it must
// not block or call the store's methods. A move to another scope is heard
// as the save of the memory in its new scope, then the delete of the old
// one.
func (s *Store) OnChange(fn func(Change)) (cancel func()) {
	return s.changes.Listen(fn)
}

// changed tells the OnChange listeners about c.
func (s *Store) changed(c Change) { s.changes.Notify(c) }

// Apply makes a change made elsewhere, such as by another member of a
// team, and reports whether it changed anything. A save stores the memory
// with its id, text, scope, times and provenance as given (the text is
// cleaned and checked like Add's, and embedded with this store's
// embedder); a delete removes the memory of that scope and id. The later
// change wins: a save older than the memory held (by Updated) is skipped,
// as is the delete of a memory updated after the deleted version; a
// delete of a memory not held does nothing. Listeners hear the change
// with Applied set.
func (s *Store) Apply(ctx context.Context, c Change) (bool, error) {
	m := c.Memory
	if err := checkScope(m.Scope); err != nil {
		return false, err
	}
	if !strings.HasPrefix(m.ID, "mem:") || len(m.ID) == len("mem:") || strings.ContainsAny(m.ID, " \t\r\n") {
		return false, fmt.Errorf("%w: %q", ErrBadID, m.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var held *Memory
	if d := s.docs[m.Scope][m.ID]; d != nil {
		h := decode(d.ID, d.Content, d.Metadata)
		held = &h
	}
	switch c.Op {
	case ChangeSave:
		if held != nil && m.Updated.Before(held.Updated) {
			return false, nil
		}
		if err := m.clean(s.opts.Sensitive); err != nil {
			return false, err
		}
		if held == nil {
			if _, err := os.Stat(s.docPath(m.Scope, m.ID)); err == nil {
				return false, fmt.Errorf("%w: %s: its file slot in %s is taken", ErrBadID, m.ID, m.Scope)
			}
		}
		now := s.opts.Now()
		if m.Created.IsZero() {
			m.Created = now
		}
		if m.Updated.IsZero() {
			m.Updated = now
		}
		_, err := s.putAs(ctx, m, true)
		return err == nil, err
	case ChangeDelete:
		if held == nil || !m.Updated.IsZero() && held.Updated.After(m.Updated) {
			return false, nil
		}
		return true, s.deleteAs(*held, true)
	}
	return false, fmt.Errorf("memory: apply: unknown change %q", c.Op)
}
