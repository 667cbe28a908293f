package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kwsdev/kws/secrets"
)

// Transcript statuses. StatusCorrupt is only reported by List, for a session
// whose summary.json cannot be read.
const (
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusError       = "error"
	StatusInterrupted = "interrupted"
	StatusCorrupt     = "corrupt"
)

// Summary is summary.json: what a session listing shows.
type Summary struct {
	ID string `json:"id"`
	// Title is the first line of the first user message, at most 80 runes.
	Title   string    `json:"title"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Messages and Calls count the transcript's messages and the model
	// calls; the session maintains them.
	Messages  int    `json:"messages"`
	Calls     int    `json:"calls"`
	Status    string `json:"status"`
	LastError string `json:"last_error,omitempty"`
}

// Run is run.json: how the session was run and what it cost.
type Run struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	// Profile and Params hold any JSON-encodable value of the caller's;
	// read back by Open they are generic JSON values with json.Number
	// numbers.
	Profile any       `json:"profile,omitempty"`
	Params  any       `json:"params,omitempty"`
	Totals  Totals    `json:"totals"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
}

// Totals are the running totals of a session.
type Totals struct {
	NaiveTokens      int `json:"naive_tokens"`
	SentTokens       int `json:"sent_tokens"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	Calls            int `json:"calls"`
	PageFaults       int `json:"page_faults"`
	Compactions      int `json:"compactions"`
	ToolCalls        int `json:"tool_calls"`
}

// SetSummary applies edit to a copy of the summary (typically its Status,
// LastError or Title) and atomically rewrites summary.json; call it after
// each turn. The id, creation time and counters stay the session's, and
// Updated is set to now. On error the summary is left unchanged.
func (s *Transcript) SetSummary(edit func(*Summary)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	sum := s.sum
	edit(&sum)
	sum.redact()
	sum.ID, sum.Created, sum.Messages, sum.Calls = s.sum.ID, s.sum.Created, s.sum.Messages, s.sum.Calls
	switch sum.Status {
	case StatusRunning, StatusDone, StatusError, StatusInterrupted:
	default:
		return fmt.Errorf("transcript: unknown status %q", sum.Status)
	}
	sum.Updated = time.Now().UTC()
	if err := writeJSONAtomic(filepath.Join(s.dir, SummaryFile), sum); err != nil {
		return err
	}
	s.sum, s.dirty = sum, false
	return nil
}

// SetRun applies edit to a copy of the run record (its Profile, Params or
// Totals) and atomically rewrites run.json. The id and start time stay
// the session's, and Updated is set to now. On error the run record is
// left unchanged.
func (s *Transcript) SetRun(edit func(*Run)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	run := s.run
	edit(&run)
	run.ID, run.Started = s.run.ID, s.run.Started
	run.Updated = time.Now().UTC()
	if err := writeJSONAtomic(filepath.Join(s.dir, RunFile), run); err != nil {
		return err
	}
	s.run = run
	return nil
}

// List returns the summaries of every session under dataDir, newest
// first. Folders without summary.json are skipped; an unreadable one is
// listed with status corrupt and the reason in LastError.
func List(dataDir string) ([]Summary, error) {
	root := Dir(dataDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: list %s: %w", root, err)
	}
	var out []Summary
	for _, e := range entries {
		if !e.IsDir() || !validID(e.Name()) {
			continue
		}
		var sum Summary
		err := readJSON(filepath.Join(root, e.Name(), SummaryFile), &sum)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			sum = Summary{Status: StatusCorrupt, LastError: err.Error()}
			if t, perr := time.Parse(idTimeLayout, idTime(e.Name())); perr == nil {
				sum.Created = t
			}
		}
		sum.ID = e.Name()
		sum.redact()
		out = append(out, sum)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// redact removes secrets from the summary's free text: its title and last
// error are listed in plain text (kws transcripts ls), and a summary written
// before titles were redacted may still hold one.
func (sum *Summary) redact() {
	sum.Title = secrets.Redact(sum.Title)
	sum.LastError = secrets.Redact(sum.LastError)
}

// idTime returns the time prefix of a session id.
func idTime(id string) string {
	if len(id) < len(idTimeLayout) {
		return id
	}
	return id[:len(idTimeLayout)]
}
