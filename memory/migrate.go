package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/philippgille/chromem-go"
)

// Before memories recorded their embedder, kws kept one store per
// embedder (DATA/memory-sidecar, DATA/memory-openai-MODEL), so switching
// embedders hid every memory. Open merges such stores into its own:
// under migrateLock, so two processes opening at once neither copy a
// memory twice nor load a half-merged store, it copies each memory in
// (an atomic write, as every memory's), then the pending candidates, and
// only then renames the old folder with MigratedSuffix. A crash before
// the rename leaves the old folder in place and the next Open merges it
// again; what was copied already is recognized, by its text in its scope
// (and a candidate by its id), and not copied twice.

// MigratedSuffix ends the name of an older store once Open has merged it.
const MigratedSuffix = ".migrated"

// migrateLock is the lock file, in the store, that serializes merges.
const migrateLock = "migrate.lock"

// Legacy is an older store to merge into the one Open opens.
type Legacy struct {
	// Dir is its folder; a missing one is skipped.
	Dir string
	// Embedder is the EmbedderID its memories' vectors are recorded
	// with when they record none and are not HashEmbedder's; a name no
	// embedder has, such as "unrecorded:sidecar", has them re-embedded.
	Embedder string
}

// loadMerging loads the store in dir after merging the older stores of
// legacy into it.
func loadMerging(dir string, legacy []Legacy) ([]chromem.Document, []Damage, error) {
	var todo []Legacy
	for _, l := range legacy {
		if _, err := os.Stat(l.Dir); err == nil {
			todo = append(todo, l)
		}
	}
	if len(todo) == 0 {
		return load(dir, true)
	}
	lock, err := os.OpenFile(filepath.Join(dir, migrateLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("memory: merge older stores: %w", err)
	}
	defer lock.Close() // closing releases the lock
	if err := flock(lock); err != nil {
		return nil, nil, fmt.Errorf("memory: merge older stores: %w", err)
	}
	docs, damage, err := load(dir, true)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range todo {
		merged, dmg, err := merge(dir, l, docs)
		if err != nil {
			return nil, nil, err
		}
		docs, damage = merged, append(damage, dmg...)
	}
	return docs, damage, nil
}

// merge copies the memories and pending candidates of the older store l
// into the store dir, which holds docs, renames l's folder, and returns
// docs with the copies added. A memory whose text its scope holds already
// is not copied; one whose id or file name is taken gets a new id.
func merge(dir string, l Legacy, docs []chromem.Document) ([]chromem.Document, []Damage, error) {
	if _, err := os.Stat(l.Dir); errors.Is(err, os.ErrNotExist) {
		return docs, nil, nil // another process merged it while this one waited
	}
	old, damage, err := load(l.Dir, false)
	if err != nil {
		return nil, nil, fmt.Errorf("memory: merge %s: %w", l.Dir, err)
	}
	type key struct{ scope, s string }
	have := map[key]bool{}
	slots := map[key]bool{}
	scopes := map[string]bool{}
	for _, d := range docs {
		sc := d.Metadata[keyScope]
		have[key{sc, d.ID}], have[key{sc, "\x00" + d.Content}], slots[key{sc, slot(d.ID)}], scopes[sc] = true, true, true, true
	}
	for _, d := range old {
		sc := d.Metadata[keyScope]
		if have[key{sc, "\x00" + d.Content}] {
			continue // copied by an earlier, interrupted merge, or the same memory
		}
		for have[key{sc, d.ID}] || slots[key{sc, slot(d.ID)}] {
			d.ID = newID("mem:") // another memory has its id or its file's name
		}
		if d.Metadata[keyEmbedder] == UnrecordedEmbedder {
			d.Metadata[keyEmbedder] = l.Embedder
		}
		if !scopes[sc] {
			if err := writeGob(filepath.Join(dir, slot(sc), metaFile), collectionMeta{Name: sc}); err != nil {
				return nil, nil, fmt.Errorf("memory: merge %s: %w", l.Dir, err)
			}
			scopes[sc] = true
		}
		if err := writeGob(filepath.Join(dir, slot(sc), slot(d.ID)+docExt), d); err != nil {
			return nil, nil, fmt.Errorf("memory: merge %s: %w", l.Dir, err)
		}
		have[key{sc, d.ID}], have[key{sc, "\x00" + d.Content}], slots[key{sc, slot(d.ID)}] = true, true, true
		docs = append(docs, d)
	}
	if err := mergePending(dir, l.Dir); err != nil {
		return nil, nil, err
	}
	if err := os.Rename(l.Dir, freeName(l.Dir+MigratedSuffix)); err != nil {
		return nil, nil, fmt.Errorf("memory: merged %s but cannot rename it: %w", l.Dir, err)
	}
	if err := syncDir(filepath.Dir(l.Dir)); err != nil {
		return nil, nil, fmt.Errorf("memory: merge %s: %w", l.Dir, err)
	}
	return docs, damage, nil
}

// mergePending appends the pending candidates of the older store in
// from to the queue of the store dir, each once (by id).
func mergePending(dir, from string) error {
	data, err := os.ReadFile(filepath.Join(from, pendingFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var add []Pending
	if err == nil {
		err = json.Unmarshal(data, &add)
	}
	if err != nil {
		// A queue that cannot be read is left in the renamed folder: the
		// memories matter more than candidates nobody approved.
		return nil
	}
	s := &Store{dir: dir}
	return s.changePending(func(q []Pending) ([]Pending, error) {
		for _, p := range add {
			if _, err := pendingIndex(q, p.ID); err != nil {
				q = append(q, p)
			}
		}
		return q, nil
	})
}

// freeName returns path, or path with ".1", ".2"… added when it exists.
func freeName(path string) string {
	name := path
	for i := 1; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, os.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s.%d", path, i)
	}
}
