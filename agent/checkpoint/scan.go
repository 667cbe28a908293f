package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/vault"
)

// Limits bound what a tracker reads and stores.
type Limits struct {
	// MaxFileSize: larger files are not tracked. Zero means 8 MiB.
	MaxFileSize int64
	// MaxEntries bounds the files and directories tracked: the walk,
	// which goes in lexical order, stops there. Zero means 20,000.
	MaxEntries int
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = 8 << 20
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 20_000
	}
	return l
}

// Coverage says what the latest scan tracked and what it left out.
type Coverage struct {
	Files, Dirs int
	// TooBig and Binary count the files left out for their size or
	// because they are binary.
	TooBig, Binary int
	// Truncated: the walk stopped at Limits.MaxEntries.
	Truncated bool
}

const (
	// binarySniff is how much of a file is searched for a NUL byte, the
	// mark of a binary file, as git does.
	binarySniff = 8000
	// racyWindow: a file modified this shortly before a scan may be
	// modified again without its size or times changing (the kernel
	// stamps times at its clock tick, some file systems to a second or
	// two), so it is read again at the next scan as well.
	racyWindow = 2 * time.Second
	// blobBatch bounds the new file bytes a scan holds before it stores
	// them, so that the first scan of a large tree stays bounded.
	blobBatch = 32 << 20
	// ignoreFileLimit bounds how much of one .gitignore is read.
	ignoreFileLimit = 1 << 20
	// worktrees holds the agents' own git worktrees: each is tracked by
	// its agent's tracker, never as part of the workspace.
	worktrees = ".kws/worktrees"
)

// stamp is what a stat says of a file: when it differs from the last
// scan's (or the file was racy), the file is read and hashed again.
type stamp struct {
	size  int64
	mtime int64
	ctime int64
	ino   uint64
	mode  fs.FileMode
}

func stampOf(fi fs.FileInfo) stamp {
	ctime, ino := changeStamp(fi)
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: ctime, ino: ino, mode: fi.Mode()}
}

// skip says why a regular file is not tracked.
type skip uint8

const (
	skipNone skip = iota
	skipTooBig
	skipBinary
)

// cached is a file as the last scan found it.
type cached struct {
	st   stamp
	e    entry // when skip is skipNone
	skip skip
	racy bool
}

// cachedIgnore is a parsed ignore file and the stamp it was parsed at.
type cachedIgnore struct {
	st   stamp
	racy bool
	f    tools.IgnoreFile
}

// scanner remembers the files of one tree between scans.
type scanner struct {
	limits  Limits
	files   map[string]cached
	ignores map[string]cachedIgnore // by the ignore file's path
	cover   Coverage
}

// forget drops what the scanner remembers, so that the next scan reads
// every file again: after a failure to store what it read.
func (s *scanner) forget() {
	s.files, s.ignores = nil, nil
}

// walk is one scan in progress.
type walk struct {
	s         *scanner
	root      *os.Root
	racyAfter int64
	flush     func([][]byte) error

	cur     manifest
	files   map[string]cached
	ignores map[string]cachedIgnore
	cover   Coverage
	pending [][]byte
	size    int
}

// errFull ends a walk that reached Limits.MaxEntries.
var errFull = errors.New("checkpoint: entry limit reached")

// scan walks the tree at dir and returns its manifest and the bytes of
// the files whose hash changed since the last scan (they may already be
// in the store; the caller stores them). Batches over blobBatch go to
// flush on the way. Files that vanish or cannot be read mid-walk are left
// out, as if deleted.
func (s *scanner) scan(dir string, flush func([][]byte) error) (manifest, [][]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close()
	w := &walk{
		s: s, root: root, racyAfter: time.Now().Add(-racyWindow).UnixNano(), flush: flush,
		cur: manifest{}, files: make(map[string]cached, len(s.files)), ignores: map[string]cachedIgnore{},
	}
	rules := w.ignoreFile(tools.IgnoreRules{}, ".git/info/exclude", "")
	if err := w.dir(dir, "", rules); err != nil && !errors.Is(err, errFull) {
		return nil, nil, err
	}
	s.files, s.ignores, s.cover = w.files, w.ignores, w.cover
	return w.cur, w.pending, nil
}

// dir walks directory abs (slash path rel, "" for the root) under rules.
// Symbolic links are never followed nor tracked; devices, sockets and
// pipes are not tracked.
func (w *walk) dir(abs, rel string, rules tools.IgnoreRules) error {
	entries, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("checkpoint: %w", err)
		}
		return nil
	}
	rules = w.ignoreFile(rules, path.Join(rel, ".gitignore"), rel)
	for _, e := range entries {
		name := e.Name()
		child := path.Join(rel, name)
		if name == ".git" || child == worktrees {
			continue
		}
		switch t := e.Type(); {
		case t.IsDir() && !rules.Ignored(child, true):
			err = w.subdir(filepath.Join(abs, name), child, e, rules)
		case t.IsRegular() && (!rules.Ignored(child, false) || secrets.SensitivePath(child)):
			err = w.file(child, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// subdir records directory child and walks it.
func (w *walk) subdir(abs, child string, e fs.DirEntry, rules tools.IgnoreRules) error {
	if err := w.count(); err != nil {
		return err
	}
	fi, err := e.Info()
	if err != nil {
		return nil
	}
	w.cur[child] = entry{kind: kindDir, perm: fi.Mode().Perm()}
	w.cover.Dirs++
	return w.dir(abs, child, rules)
}

// count fails with errFull when the walk holds as many entries as the
// limits allow.
func (w *walk) count() error {
	if w.cover.Files+w.cover.Dirs >= w.s.limits.MaxEntries {
		w.cover.Truncated = true
		return errFull
	}
	return nil
}

// file records regular file rel, read again only when its stamp changed
// or it was racy. Ignored files are still tracked when they hold secrets
// (.env is often ignored, and an agent overwriting it loses the most).
func (w *walk) file(rel string, e fs.DirEntry) error {
	if err := w.count(); err != nil {
		return err
	}
	fi, err := e.Info()
	if err != nil {
		return nil
	}
	st := stampOf(fi)
	c, had := w.s.files[rel]
	if !had || c.st != st || c.racy {
		var ok bool
		if c, ok = w.read(rel, st, c, had); !ok {
			return nil
		}
	}
	c.racy = st.mtime >= w.racyAfter
	w.files[rel] = c
	switch c.skip {
	case skipTooBig:
		w.cover.TooBig++
	case skipBinary:
		w.cover.Binary++
	default:
		w.cur[rel] = c.e
		w.cover.Files++
	}
	return w.flushFull()
}

// read reads and hashes rel (stamp st; old is what the last scan had,
// when had), queueing its bytes when their hash is new for the path. It
// reports false for a file that could not be read.
func (w *walk) read(rel string, st stamp, old cached, had bool) (cached, bool) {
	c := cached{st: st}
	if st.size > w.s.limits.MaxFileSize {
		c.skip = skipTooBig
		return c, true
	}
	data, err := readRegular(w.root, rel, w.s.limits.MaxFileSize)
	switch {
	case errors.Is(err, errTooBig):
		c.skip = skipTooBig
		return c, true
	case err != nil:
		return c, false
	case bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0:
		c.skip = skipBinary
		return c, true
	}
	c.e = entry{kind: kindFile, perm: st.mode.Perm(), hash: vault.HashBlob(data)}
	if !had || old.skip != skipNone || old.e.hash != c.e.hash {
		w.pending = append(w.pending, data)
		w.size += len(data)
	}
	return c, true
}

// flushFull hands the queued bytes to flush once they pass blobBatch.
func (w *walk) flushFull() error {
	if w.size < blobBatch {
		return nil
	}
	if err := w.flush(w.pending); err != nil {
		return err
	}
	w.pending, w.size = nil, 0
	return nil
}

// ignoreFile returns rules plus the ignore file at rel (of directory dir)
// when there is one, parsed again only when it changed.
func (w *walk) ignoreFile(rules tools.IgnoreRules, rel, dir string) tools.IgnoreRules {
	fi, err := w.root.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return rules
	}
	st := stampOf(fi)
	c, ok := w.s.ignores[rel]
	if !ok || c.st != st || c.racy {
		data, err := readRegular(w.root, rel, ignoreFileLimit)
		if err != nil && !errors.Is(err, errTooBig) {
			return rules
		}
		c = cachedIgnore{st: st, f: tools.ParseIgnoreFile(dir, data)}
	}
	c.racy = st.mtime >= w.racyAfter
	w.ignores[rel] = c
	return rules.With(c.f)
}

// errTooBig is returned by readRegular for a file over its limit.
var errTooBig = errors.New("checkpoint: file over the size limit")

// readRegular returns the bytes of regular file rel inside root, at most
// limit of them (errTooBig beyond). Opening through root never leaves it,
// whatever symbolic links the tree holds.
func readRegular(root *os.Root, rel string, limit int64) ([]byte, error) {
	f, err := root.OpenFile(rel, readFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("checkpoint: %s is not a regular file", Name(rel))
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(fi.Size(), limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, errTooBig
	}
	return buf.Bytes(), nil
}
