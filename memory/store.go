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

	"github.com/kwsdev/kws/internal/pubsub"
)

// Store is an open memory directory. One *Store is safe for many
// goroutines. Processes share the pending queue safely (pending.go); each
// loads the memories on Open, so one does not see memories another adds
// later.
type Store struct {
	dir  string
	opts Options
	// docs are every memory, by scope and id, whatever embedder made its
	// vector; they are what the files hold.
	docs map[string]map[string]*chromem.Document
	// vecs holds, per scope, the vectors of the memories whose vectors
	// the store's own embedder made, and only those: vectors of different
	// embedders are never compared. The store writes the files itself
	// (disk.go).
	vecs map[string]*vectors
	// dims is the size of the embedder's vectors, 0 until one is seen; a
	// vector of another size never reaches vecs.
	dims   int
	damage []Damage // found by Open

	mu sync.RWMutex // held for writing by changes, for reading by reads

	cacheMu   sync.Mutex  // guards the last queue Pending read:
	cacheFile os.FileInfo // the queue file it was read from
	cache     []Pending

	lex lexicon // word index of every memory's text (lexical.go)

	// watchers hear changes of the pending queue and re-embedding (Watch).
	watchers pubsub.Listeners[struct{}]
	// changes hear each memory saved or deleted (OnChange).
	changes pubsub.Listeners[Change]

	re reembedder // the background re-embedding (reembed.go)
}

// Open opens (creating if needed) the memory store in dir, first merging
// in the stores of Options.Migrate. Memories whose vectors another
// embedder made are re-embedded in the background until Close.
func Open(dir string, opts Options) (*Store, error) {
	if opts.Embedder != nil && opts.EmbedderID == "" {
		return nil, ErrNoEmbedderID
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	opts = opts.withDefaults()
	docs, damage, err := loadMerging(dir, opts.Migrate)
	if err != nil {
		return nil, fmt.Errorf("memory: open %s: %w", dir, err)
	}
	s := &Store{dir: dir, opts: opts, vecs: map[string]*vectors{}, docs: map[string]map[string]*chromem.Document{}, damage: damage}
	for _, d := range docs {
		s.place(d)
	}
	s.checkPending()
	s.startReembed()
	return s, nil
}

// Close stops the background re-embedding and waits for it; what it
// re-embedded is kept, and the next Open goes on with the rest. The
// store must not be used after Close.
func (s *Store) Close() error {
	s.stopReembed()
	return nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Embedder returns the EmbedderID of the store's embedder.
func (s *Store) Embedder() string { return s.opts.EmbedderID }

// Damaged returns the files Open found damaged and moved aside, in the
// order of their paths; the caller warns the user with each one's String.
func (s *Store) Damaged() []Damage { return append([]Damage(nil), s.damage...) }

// place makes doc, as its file holds it, the memory of its scope and id
// in memory: among the scope's memories, and among the scope's vectors
// when the store's embedder made its vector, else out of them.
// Every memory the store loads, writes or re-embeds passes here, with
// s.mu held for writing (or before Open returns).
func (s *Store) place(doc chromem.Document) {
	scope := doc.Metadata[keyScope]
	if s.docs[scope] == nil {
		s.docs[scope] = map[string]*chromem.Document{}
	}
	s.docs[scope][doc.ID] = &doc
	s.lexPut(scope, doc.ID, doc.Content, createdOf(doc.Metadata))
	if !s.current(doc) {
		s.unvector(scope, doc.ID)
		return
	}
	if s.dims == 0 {
		s.dims = len(doc.Embedding)
	}
	v := s.vecs[scope]
	if v == nil {
		v = &vectors{}
		s.vecs[scope] = v
	}
	v.put(doc.ID, doc.Embedding)
}

// unvector drops the vector of memory id of scope, if it has one.
func (s *Store) unvector(scope, id string) {
	if v := s.vecs[scope]; v != nil {
		if v.remove(id); v.len() == 0 {
			delete(s.vecs, scope)
		}
	}
}

// unplace forgets memory id of scope in memory; the one path a removal
// takes (see place).
func (s *Store) unplace(scope, id string) {
	s.lexRemove(scope, id)
	delete(s.docs[scope], id)
	if len(s.docs[scope]) == 0 {
		delete(s.docs, scope)
	}
	s.unvector(scope, id)
}

// current reports whether the store's embedder made doc's vector, so it
// can be compared with the store's other vectors and queries.
func (s *Store) current(doc chromem.Document) bool {
	return doc.Metadata[keyEmbedder] == s.opts.EmbedderID && len(doc.Embedding) > 0 &&
		(s.dims == 0 || len(doc.Embedding) == s.dims)
}

// Scopes returns the scopes that hold memories, sorted.
func (s *Store) Scopes() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.scopes()
}

func (s *Store) scopes() []string {
	out := make([]string, 0, len(s.docs))
	for name := range s.docs {
		out = append(out, name)
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
	return s.put(ctx, m)
}

// put embeds m's text and stores m, replacing a memory with the same
// scope and id, and returns it with its Embedder set.
func (s *Store) put(ctx context.Context, m Memory) (Memory, error) {
	return s.putAs(ctx, m, false)
}

// putAs is put; the OnChange listeners hear the save with Applied set to
// applied.
func (s *Store) putAs(ctx context.Context, m Memory, applied bool) (Memory, error) {
	vec, err := s.embed(ctx, m.Text)
	if err != nil {
		return Memory{}, err
	}
	if s.dims == 0 {
		s.dims = len(vec)
	}
	m.Embedder = s.opts.EmbedderID
	if err := s.write(chromem.Document{ID: m.ID, Metadata: m.metadata(), Embedding: vec, Content: m.Text}); err != nil {
		return m, err
	}
	s.changed(Change{Op: ChangeSave, Memory: m, Applied: applied})
	return m, nil
}

// write stores doc: first its file, atomically, then in memory (place).
// A scope's first memory writes the scope's name file first.
func (s *Store) write(doc chromem.Document) error {
	scope := doc.Metadata[keyScope]
	if s.docs[scope] == nil {
		if err := writeGob(filepath.Join(s.dir, slot(scope), metaFile), collectionMeta{Name: scope}); err != nil {
			return fmt.Errorf("memory: scope %s: %w", scope, err)
		}
	}
	if err := writeGob(s.docPath(scope, doc.ID), doc); err != nil {
		return fmt.Errorf("memory: store %s: %w", doc.ID, err)
	}
	s.place(doc)
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
	if m, err = s.put(ctx, m); err != nil {
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

// delete removes memory m: its file, then in memory (unplace).
func (s *Store) delete(m Memory) error { return s.deleteAs(m, false) }

// deleteAs is delete; the OnChange listeners hear the delete with Applied
// set to applied.
func (s *Store) deleteAs(m Memory, applied bool) error {
	d := s.docs[m.Scope][m.ID]
	if d == nil {
		return nil
	}
	if err := removeFile(s.docPath(m.Scope, m.ID)); err != nil {
		return fmt.Errorf("memory: delete %s: %w", m.ID, err)
	}
	s.unplace(m.Scope, m.ID)
	s.changed(Change{Op: ChangeDelete, Memory: decode(d.ID, d.Content, d.Metadata), Applied: applied})
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
		for _, scope := range s.scopes() {
			if doc := s.docs[scope][id]; doc != nil {
				return decode(doc.ID, doc.Content, doc.Metadata), nil
			}
		}
	}
	return Memory{}, fmt.Errorf("%w: %q", ErrNotFound, id)
}

// Count returns the number of memories in scopes, or in every scope when
// none is given.
func (s *Store) Count(scopes ...string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(scopes) == 0 {
		scopes = s.scopes()
	}
	n := 0
	for _, sc := range scopes {
		n += len(s.docs[sc])
	}
	return n
}

// embed runs the embedder on text, refusing a vector of another size
// than the store's (see dims), so no such vector reaches vecs.
func (s *Store) embed(ctx context.Context, text string) ([]float32, error) {
	return s.embedWith(ctx, s.opts.Embedder, text)
}

// embedQuery embeds a search query with Options.QueryEmbedder.
func (s *Store) embedQuery(ctx context.Context, query string) ([]float32, error) {
	return s.embedWith(ctx, s.opts.QueryEmbedder, query)
}

// embedWith embeds text with f, checking the vector's size.
func (s *Store) embedWith(ctx context.Context, f chromem.EmbeddingFunc, text string) ([]float32, error) {
	vec, err := f(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("memory: embed: %w", err)
	}
	if err := s.checkDims(vec); err != nil {
		return nil, err
	}
	return vec, nil
}

// checkDims returns ErrEmbedder when vec is empty or not of the size of
// the store's vectors.
func (s *Store) checkDims(vec []float32) error {
	if len(vec) == 0 || s.dims != 0 && len(vec) != s.dims {
		return fmt.Errorf("%w: %s made a vector of %d numbers, its others have %d", ErrEmbedder, s.opts.EmbedderID, len(vec), s.dims)
	}
	return nil
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
