// Package trust keeps the user's approvals of code that a workspace's
// .kws/config.toml would run: its MCP servers and its hooks. A cloned
// repository may name commands there, but kws runs one only once the user
// has approved exactly that for that workspace, pinned by a hash of what
// runs (the command line and the contents of the files it runs that live
// in the workspace, which agents write). Any change needs a new approval.
// The approvals live in one JSON file in the data dir.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// FileName is the record's file in the data dir. It kept the name it had
// when it held MCP servers' approvals alone, so those stay approved.
const FileName = "mcp-trust.json"

// Record is the user's approvals. It is safe for concurrent use within
// one process; its file is replaced atomically.
type Record struct {
	path string
	mu   sync.Mutex
}

// entry is one approval. Its JSON field names are those of the file's
// first version.
type entry struct {
	Workspace string    `json:"workspace"`
	Name      string    `json:"server"`
	Hash      string    `json:"hash"`
	What      string    `json:"command"`
	Approved  time.Time `json:"approved"`
}

// Open returns the record kept in dataDir.
func Open(dataDir string) *Record {
	return &Record{path: filepath.Join(dataDir, FileName)}
}

func (r *Record) load() ([]entry, error) {
	data, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []entry
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", r.path, err)
	}
	return out, nil
}

// Trusted reports whether the user approved name, as hash pins it now, for
// workspace; changed says an earlier form of it was approved. A nil record
// trusts nothing.
func (r *Record) Trusted(workspace, name, hash string) (ok, changed bool, err error) {
	if r == nil {
		return false, false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	entries, err := r.load()
	if err != nil {
		return false, false, err
	}
	for _, e := range entries {
		if e.Workspace == workspace && e.Name == name {
			if e.Hash == hash {
				return true, false, nil
			}
			changed = true
		}
	}
	return false, changed, nil
}

// Approve records the user's approval of name, as hash pins it, for
// workspace, replacing an approval of an earlier form; what is the line
// the user approved, kept for them to read.
func (r *Record) Approve(workspace, name, hash, what string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	entries, err := r.load()
	if err != nil {
		return err
	}
	entries = slices.DeleteFunc(entries, func(e entry) bool { return e.Workspace == workspace && e.Name == name })
	entries = append(entries, entry{Workspace: workspace, Name: name, Hash: hash, What: what, Approved: time.Now().UTC()})
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return err
	}
	tmp := r.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, r.path)
}

// Hash is the SHA-256 of v's JSON encoding: what an approval pins.
func Hash(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ProgramPath is the file command runs: relative to workspace when it
// names a path, else found on the PATH; "" when there is none.
func ProgramPath(workspace, command string) string {
	if command == "" {
		return ""
	}
	if strings.Contains(command, "/") {
		if filepath.IsAbs(command) {
			return command
		}
		return filepath.Join(workspace, command)
	}
	p, err := exec.LookPath(command)
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}

// FileHash is the SHA-256 of the regular file at path (symlinks followed,
// so a link repointed elsewhere changes it), or what stands there instead.
func FileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "absent"
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "not a file"
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Within reports whether path (resolved through its symlinks) lies in dir.
func Within(path, dir string) bool {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
