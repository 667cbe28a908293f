package memory

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/philippgille/chromem-go"
)

// The store's files keep chromem-go's layout, so a store it wrote opens
// unchanged: a folder per scope named slot(scope), holding metaFile (the
// scope's name) and a slot(id)+docExt file per memory, each a gob of a
// chromem.Document. chromem-go's persistent DB writes those files in
// place (create, truncate, write), so a kill mid-write leaves a torn file,
// and its loader then refuses the whole directory. The store therefore
// keeps its memories in memory and writes the files itself: a temporary file, fsync, rename over the old file, fsync of the
// folder. On Open a file that does not decode is moved to QuarantineDir
// and reported by Store.Damaged; the rest loads.

const (
	// metaFile holds a scope folder's scope name.
	metaFile = "00000000.gob"
	// docExt ends a memory's file name.
	docExt = ".gob"
	// tmpPrefix starts the name of a file being written; one found on
	// Open was left by a write that was cut short, and is removed.
	tmpPrefix = ".tmp-"
	// QuarantineDir is the folder, inside the store, that Open moves
	// damaged files to.
	QuarantineDir = "quarantine"
)

// collectionMeta is the content of a metaFile, as chromem-go writes it.
type collectionMeta struct {
	Name     string
	Metadata map[string]string
}

// Damage is a file of the store that Open could not read and moved aside;
// the memories of the other files are unaffected.
type Damage struct {
	// File is where the damaged file was.
	File string
	// MovedTo is where it is now; empty when moving it failed, in which
	// case it stays, unread, where it was.
	MovedTo string
	// Err says what is wrong with it.
	Err error
}

// String is a warning for the user naming the file and where it went.
func (d Damage) String() string {
	if d.MovedTo == "" {
		return fmt.Sprintf("memory: skipped damaged file %s (%v); could not move it aside", d.File, d.Err)
	}
	return fmt.Sprintf("memory: damaged file %s (%v) moved to %s; the other memories are unaffected", d.File, d.Err, d.MovedTo)
}

// loadScope reads the memories of the scope folder name of dir. A damaged
// or missing name file is rewritten from the scope the memories record.
func loadScope(dir, name string) ([]chromem.Document, []Damage, error) {
	folder := filepath.Join(dir, name)
	files, err := os.ReadDir(folder)
	if err != nil {
		return nil, nil, fmt.Errorf("memory: %w", err)
	}
	var (
		damage  []Damage
		docs    []chromem.Document
		meta    collectionMeta
		metaErr = os.ErrNotExist
	)
	for _, f := range files {
		path := filepath.Join(folder, f.Name())
		switch {
		case f.IsDir():
		case strings.HasPrefix(f.Name(), tmpPrefix):
			os.Remove(path)
		case f.Name() == metaFile:
			if metaErr = readGob(path, &meta); metaErr == nil && slot(meta.Name) != name {
				metaErr = fmt.Errorf("scope %q does not belong in folder %s", meta.Name, name)
			}
			if metaErr != nil {
				damage = append(damage, quarantine(dir, path, metaErr))
			}
		case strings.HasSuffix(f.Name(), docExt):
			var d chromem.Document
			err := readGob(path, &d)
			if err == nil {
				err = checkDoc(d, name, f.Name())
			}
			if err != nil {
				damage = append(damage, quarantine(dir, path, err))
				continue
			}
			docs = append(docs, d)
		}
	}
	if metaErr != nil && len(docs) > 0 {
		meta = collectionMeta{Name: docs[0].Metadata[keyScope]}
		if err := writeGob(filepath.Join(folder, metaFile), meta); err != nil {
			return nil, nil, fmt.Errorf("memory: restore the name of scope %s: %w", meta.Name, err)
		}
	}
	return docs, damage, nil
}

// checkDoc reports what is wrong with a decoded memory file: it must be
// in the file and folder its id and scope name, and carry a vector.
func checkDoc(d chromem.Document, folder, file string) error {
	switch {
	case d.ID == "":
		return errors.New("no id")
	case slot(d.ID)+docExt != file:
		return fmt.Errorf("holds %s, which belongs in %s", d.ID, slot(d.ID)+docExt)
	case d.Metadata == nil || slot(d.Metadata[keyScope]) != folder:
		return fmt.Errorf("holds a memory of scope %q, which belongs in folder %s", d.Metadata[keyScope], slot(d.Metadata[keyScope]))
	case len(d.Embedding) == 0:
		return errors.New("no vector")
	}
	return nil
}

// quarantine moves the damaged file path of the store dir into
// QuarantineDir, under a name that says where it was and never replaces
// an earlier one.
func quarantine(dir, path string, cause error) Damage {
	d := Damage{File: path, Err: cause}
	qdir := filepath.Join(dir, QuarantineDir)
	if err := os.MkdirAll(qdir, 0o700); err != nil {
		return d
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		rel = filepath.Base(path)
	}
	base := filepath.Join(qdir, strings.ReplaceAll(rel, string(filepath.Separator), "-"))
	dst := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
			break
		}
		dst = fmt.Sprintf("%s.%d", base, i)
	}
	if os.Rename(path, dst) == nil {
		d.MovedTo = dst
	}
	return d
}

// readGob decodes the file at path into v.
func readGob(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// writeGob encodes v into the file at path, atomically.
func writeGob(path string, v any) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic replaces the file at path with data so that a reader,
// or the next Open after a crash, sees the old content or the new, never
// a mix: a temporary file in the same folder, synced, renamed over path,
// and the folder synced. The folder is created if needed.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return syncDir(dir)
}

// removeFile removes the file at path, if any, and syncs its folder.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir flushes a folder's entries (a rename or removal) to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
