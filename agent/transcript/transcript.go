// Package session keeps the durable record of one agent conversation: a
// folder DATA/sessions/<id>/ holding the append-only transcript
// (raw.jsonl), what each model call actually sent (sent.jsonl), a small
// summary for listings (summary.json) and the run's settings and totals
// (run.json).
//
// Every transcript and call record is fsynced before its append returns,
// so an acknowledged record survives a crash; a crash can at worst leave a
// torn last line, which Open cuts away and reports. summary.json and
// run.json are replaced atomically (temp file, fsync, rename), so readers
// see either the old or the new version, never a mix.
//
// A Transcript is safe for concurrent use by goroutines of one process. Only
// one open Transcript may write a session folder: Create and Open take an
// exclusive lock on its LockFile, and Open of a session open elsewhere
// fails with a *RunningError before changing anything.
package transcript

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kwsdev/kws/agent/provider"
)

// File names inside a session folder.
const (
	RawFile     = "raw.jsonl"
	SentFile    = "sent.jsonl"
	SummaryFile = "summary.json"
	RunFile     = "run.json"
)

// ErrClosed is returned by every method of a Transcript after Close.
var ErrClosed = errors.New("transcript: closed")

// idTimeLayout is the time prefix of a session id; ids sort by creation.
const idTimeLayout = "20060102-150405"

// Transcript is one open conversation record. Create or Open returns it;
// Close releases its files.
type Transcript struct {
	mu       sync.Mutex
	id       string
	dir      string
	raw      *os.File
	sent     *os.File
	lock     *os.File // holds LockFile's lock while the session is open
	rawSize  int64
	sentSize int64
	seq      int
	calls    int
	msgs     []provider.Message
	sum      Summary
	run      Run
	dirty    bool  // sum's counters changed since summary.json was written
	err      error // sticky: the journal is unusable after a failed fsync
	closed   bool
}

// NewID returns a fresh session id such as 20261122-031500-3f9a2c: the
// UTC creation time to the second, then six random hex digits. Ids sort
// by creation time.
func NewID() string {
	return newID(time.Now())
}

func newID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return t.UTC().Format(idTimeLayout) + "-" + hex.EncodeToString(b[:])
}

// Dir returns the folder holding every session under dataDir.
func Dir(dataDir string) string {
	return filepath.Join(dataDir, "sessions")
}

// Create starts a new session under dataDir for the given workspace: it
// makes the folder, the empty transcripts, and a summary with status
// running.
func Create(dataDir, workspace string) (*Transcript, error) {
	root := Dir(dataDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("transcript: create %s: %w", root, err)
	}
	var id, dir string
	for attempt := 0; ; attempt++ {
		id = NewID()
		dir = filepath.Join(root, id)
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || attempt == 4 {
			return nil, fmt.Errorf("transcript: create %s: %w", dir, err)
		}
	}
	s, err := create(id, dir, workspace)
	if err == nil {
		err = syncDir(root)
	}
	if err != nil {
		if s != nil {
			s.closeFiles()
		}
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func create(id, dir, workspace string) (*Transcript, error) {
	now := time.Now().UTC()
	s := &Transcript{id: id, dir: dir}
	s.sum = Summary{ID: id, Created: now, Updated: now, Status: StatusRunning}
	s.run = Run{ID: id, Workspace: workspace, Started: now, Updated: now}
	var err error
	if s.lock, err = lockDir(dir, id); err != nil {
		return nil, err
	}
	if s.raw, err = createLog(filepath.Join(dir, RawFile)); err != nil {
		s.closeFiles()
		return nil, err
	}
	if s.sent, err = createLog(filepath.Join(dir, SentFile)); err != nil {
		s.closeFiles()
		return nil, err
	}
	err = writeJSONAtomic(filepath.Join(dir, SummaryFile), s.sum)
	if err == nil {
		err = writeJSONAtomic(filepath.Join(dir, RunFile), s.run)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

func createLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: create %s: %w", path, err)
	}
	return f, nil
}

// validID reports whether id names a folder directly under the sessions
// folder (no separators, no dot names).
func validID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`) &&
		filepath.Base(id) == id
}

// ID returns the session id.
func (s *Transcript) ID() string { return s.id }

// Dir returns the session folder.
func (s *Transcript) Dir() string { return s.dir }

// Messages returns a copy of the transcript's messages in order.
func (s *Transcript) Messages() []provider.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]provider.Message, len(s.msgs))
	for i, m := range s.msgs {
		out[i] = cloneMessage(m)
	}
	return out
}

// Summary returns the session's current summary, including counters not
// yet written to summary.json.
func (s *Transcript) Summary() Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sum
}

// Run returns the session's current run record.
func (s *Transcript) Run() Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run
}

// Close writes summary.json if its counters changed since the last write
// (leaving the status as it is) and closes the transcript files. Closing
// twice is harmless.
func (s *Transcript) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.dirty {
		sum := s.sum
		sum.Updated = time.Now().UTC()
		if err = writeJSONAtomic(filepath.Join(s.dir, SummaryFile), sum); err == nil {
			s.sum, s.dirty = sum, false
		}
	}
	return errors.Join(err, s.closeFiles())
}

func (s *Transcript) closeFiles() error {
	var errs []error
	for _, f := range []*os.File{s.raw, s.sent, s.lock} {
		if f != nil {
			if err := f.Close(); err != nil {
				errs = append(errs, fmt.Errorf("transcript: close %s: %w", f.Name(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// usable returns why the session cannot be written, or nil.
func (s *Transcript) usable() error {
	if s.closed {
		return ErrClosed
	}
	return s.err
}

func cloneMessage(m provider.Message) provider.Message {
	m.ToolCalls = slices.Clone(m.ToolCalls)
	return m
}
