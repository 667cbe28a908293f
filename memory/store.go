package memory

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/philippgille/chromem-go"
)

// Store is an open memory directory. One *Store is safe for many
// goroutines. Processes share the pending queue safely (pending.go); each
// loads the memories on Open, so one does not see memories another adds
// later.
type Store struct {
	dir    string
	opts   Options
	db     *chromem.DB // in memory; the store writes the files (disk.go)
	damage []Damage    // found by Open

	mu sync.RWMutex // held for writing by changes, for reading by reads

	cacheMu   sync.Mutex  // guards the last queue Pending read:
	cacheFile os.FileInfo // the queue file it was read from
	cache     []Pending

	probeMu sync.Mutex
	probe   []float32 // any vector of the embedder's size, for listing

	lex lexicon // word index of every memory's text (lexical.go)

	watchMu  sync.Mutex // guards the watchers of the pending queue
	watchers map[int]func()
	watchID  int
}

// Open opens (creating if needed) the memory store in dir.
func Open(dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	opts = opts.withDefaults()
	db, damage, err := load(dir, opts.Embedder)
	if err != nil {
		return nil, fmt.Errorf("memory: open %s: %w", dir, err)
	}
	s := &Store{dir: dir, opts: opts, db: db, damage: damage}
	s.checkPending()
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Damaged returns the files Open found damaged and moved aside, in the
// order of their paths; the caller warns the user with each one's String.
func (s *Store) Damaged() []Damage { return append([]Damage(nil), s.damage...) }

// collection returns the collection of scope, nil when it does not exist
// and create is false. Creating one writes its name file first.
func (s *Store) collection(scope string, create bool) (*chromem.Collection, error) {
	if c := s.db.GetCollection(scope, s.opts.Embedder); c != nil || !create {
		return c, nil
	}
	if err := writeGob(filepath.Join(s.dir, slot(scope), metaFile), collectionMeta{Name: scope}); err != nil {
		return nil, fmt.Errorf("memory: scope %s: %w", scope, err)
	}
	c, err := s.db.GetOrCreateCollection(scope, nil, s.opts.Embedder)
	if err != nil {
		return nil, fmt.Errorf("memory: scope %s: %w", scope, err)
	}
	return c, nil
}

// Scopes returns the scopes that hold memories, sorted.
func (s *Store) Scopes() []string {
	var out []string
	for name, c := range s.db.ListCollections() {
		if c.Count() > 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Add stores m as a new memory and returns it with its id and times set.
// Blank kind, source and confidence default to note, manual and 1.
func (s *Store) Add(ctx context.Context, m Memory) (Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(ctx, m)
}

func (s *Store) add(ctx context.Context, m Memory) (Memory, error) {
	if err := m.clean(s.opts.Sensitive); err != nil {
		return Memory{}, err
	}
	m.ID = s.freeID(m.Scope, "")
	m.Created = s.opts.Now()
	m.Updated = m.Created
	if err := s.put(ctx, m); err != nil {
		return Memory{}, err
	}
	return m, nil
}

// put writes m into its scope's collection, replacing a document with the
// same id: first its file, atomically, then the collection.
func (s *Store) put(ctx context.Context, m Memory) error {
	c, err := s.collection(m.Scope, true)
	if err != nil {
		return err
	}
	vec, err := s.embed(ctx, m.Text)
	if err != nil {
		return err
	}
	doc := chromem.Document{ID: m.ID, Metadata: m.metadata(), Embedding: vec, Content: m.Text}
	if err := writeGob(s.docPath(m.Scope, m.ID), doc); err != nil {
		return fmt.Errorf("memory: store %s: %w", m.ID, err)
	}
	if err := c.AddDocument(ctx, doc); err != nil {
		return fmt.Errorf("memory: store %s: %w", m.ID, err)
	}
	s.lexPut(m)
	return nil
}

// Update replaces the text, kind, confidence and provenance of memory
// m.ID, keeping its creation time. A different scope moves the memory; it
// keeps its id unless that would clash on disk in the new scope (see
// freeID), and the returned Memory carries the id it has.
func (s *Store) Update(ctx context.Context, m Memory) (Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.update(ctx, m)
}

func (s *Store) update(ctx context.Context, m Memory) (Memory, error) {
	old, err := s.get(m.ID)
	if err != nil {
		return Memory{}, err
	}
	if err := m.clean(s.opts.Sensitive); err != nil {
		return Memory{}, err
	}
	m.Created, m.Updated = old.Created, s.opts.Now()
	if old.Scope != m.Scope {
		m.ID = s.freeID(m.Scope, m.ID)
	}
	if err := s.put(ctx, m); err != nil {
		return Memory{}, err
	}
	if old.Scope != m.Scope {
		if err := s.delete(old); err != nil {
			return Memory{}, err
		}
	}
	return m, nil
}

// Delete removes memory id (as Get finds it).
func (s *Store) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(id)
	if err != nil {
		return err
	}
	return s.delete(m)
}

func (s *Store) delete(m Memory) error {
	c, err := s.collection(m.Scope, false)
	if err != nil || c == nil {
		return err
	}
	if err := removeFile(s.docPath(m.Scope, m.ID)); err != nil {
		return fmt.Errorf("memory: delete %s: %w", m.ID, err)
	}
	if err := c.Delete(context.Background(), nil, nil, m.ID); err != nil {
		return fmt.Errorf("memory: delete %s: %w", m.ID, err)
	}
	s.lexRemove(m)
	return nil
}

// Get returns memory id, from whichever scope holds it; the "mem:" prefix
// may be left out.
func (s *Store) Get(id string) (Memory, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.get(id)
}

func (s *Store) get(id string) (Memory, error) {
	id = strings.TrimSpace(id)
	if id != "" && !strings.HasPrefix(id, "mem:") {
		id = "mem:" + id
	}
	if id != "" {
		for _, c := range s.db.ListCollections() {
			if doc, err := c.GetByID(context.Background(), id); err == nil {
				return decode(doc.ID, doc.Content, doc.Metadata), nil
			}
		}
	}
	return Memory{}, fmt.Errorf("%w: %q", ErrNotFound, id)
}

// Count returns the number of memories in scopes, or in every scope when
// none is given.
func (s *Store) Count(scopes ...string) int {
	if len(scopes) == 0 {
		scopes = s.Scopes()
	}
	n := 0
	for _, sc := range scopes {
		if c, _ := s.collection(sc, false); c != nil {
			n += c.Count()
		}
	}
	return n
}

// embed runs the embedder on text.
func (s *Store) embed(ctx context.Context, text string) ([]float32, error) {
	vec, err := s.opts.Embedder(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("memory: embed: %w", err)
	}
	return vec, nil
}

// queryError wraps a chromem query error, recognizing a vector-size
// mismatch as ErrEmbedder.
func queryError(scope string, err error) error {
	if strings.Contains(err.Error(), "same length") {
		return fmt.Errorf("%w (scope %s)", ErrEmbedder, scope)
	}
	return fmt.Errorf("memory: query %s: %w", scope, err)
}

// freeID returns id, or a new random id when id is empty or its file
// slot in scope is taken. A memory is kept, in chromem-go's layout, in a
// file named after 8 hex digits of the SHA-256 of its id (in a folder
// named the same way after the scope), so two ids sharing a slot would overwrite
// each other on disk: among 50,000 random ids that happens about one time
// in four.
func (s *Store) freeID(scope, id string) string {
	for {
		if id != "" {
			if _, err := os.Stat(s.docPath(scope, id)); err != nil {
				return id // free (or unreadable, which put reports)
			}
		}
		id = newID("mem:")
	}
}

// docPath is the file of memory id in scope.
func (s *Store) docPath(scope, id string) string {
	return filepath.Join(s.dir, slot(scope), slot(id)+docExt)
}

// slot is chromem-go's file name for a collection or document name.
func slot(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:4])
}

// newID returns prefix followed by 12 random hex digits.
func newID(prefix string) string {
	var b [6]byte
	rand.Read(b[:]) // never fails: crypto/rand crashes the program instead
	return prefix + hex.EncodeToString(b[:])
}
