package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Recovery describes what Open repaired when resuming a session.
type Recovery struct {
	// Interrupted reports that the session was still marked running (its
	// process died or never closed it) and is now marked interrupted.
	Interrupted bool
	// Truncated lists the torn or corrupt last lines cut off the logs.
	Truncated []Truncation
}

// Truncation is one torn or corrupt last line cut off a log file.
type Truncation struct {
	File   string // RawFile or SentFile
	Line   int    // 1-based line number; 0 when not counted (sent.jsonl)
	Offset int64  // where the file now ends
	Bytes  int64  // how many bytes were removed
	Reason string
}

// Clean reports whether Open found nothing to repair.
func (r Recovery) Clean() bool {
	return !r.Interrupted && len(r.Truncated) == 0
}

// ErrDamaged is matched (errors.Is) by the error Open returns when the
// transcript holds fewer messages than summary.json records: records that
// were acknowledged are gone, so the session is not resumed.
var ErrDamaged = errors.New("transcript: damaged")

// ErrNotFound is matched (errors.Is) by the error Open returns when
// DATA/sessions holds no session with the id: no folder of that name, or
// a folder without the summary.json every created session has.
var ErrNotFound = errors.New("no such transcript")

// Open resumes session id under dataDir; an id dataDir holds no session
// of is ErrNotFound. It takes the session's lock
// first, so a session another process has open fails with a *RunningError
// before anything is touched. It then reads the whole transcript, cuts a
// torn or corrupt last line off raw.jsonl and sent.jsonl (reported in the
// Recovery), resynchronises the summary's counters and turns status
// running into interrupted. A corrupt line before the last one is an
// error naming the line, and a transcript holding fewer messages than
// summary.json records is ErrDamaged; both leave every file as it was:
// records are never dropped silently.
func Open(dataDir, id string) (*Transcript, Recovery, error) {
	var rec Recovery
	if !validID(id) {
		return nil, rec, fmt.Errorf("transcript: invalid id %q", id)
	}
	dir := filepath.Join(Dir(dataDir), id)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, rec, fmt.Errorf("transcript: %w", err)
		}
		return nil, rec, noTranscript(dataDir, id)
	}
	s := &Transcript{id: id, dir: dir}
	var err error
	if s.lock, err = lockDir(dir, id); err != nil {
		return nil, rec, err
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); errors.Is(err, fs.ErrNotExist) {
		s.closeFiles()
		return nil, rec, noTranscript(dataDir, id)
	}
	if err := s.open(&rec); err != nil {
		s.closeFiles()
		return nil, rec, err
	}
	return s, rec, nil
}

// noTranscript is the error for opening id when dataDir holds no such
// session; it matches ErrNotFound.
func noTranscript(dataDir, id string) error {
	return fmt.Errorf("transcript: no transcript %s in %s (kws transcripts ls lists them): %w", id, Dir(dataDir), ErrNotFound)
}

// open reads and repairs the session's files once its lock is held.
func (s *Transcript) open(rec *Recovery) error {
	if err := readJSON(filepath.Join(s.dir, SummaryFile), &s.sum); err != nil {
		return err
	}
	s.sum.redact()
	if err := readJSON(filepath.Join(s.dir, RunFile), &s.run); err != nil {
		return err
	}
	recorded := s.sum.Messages
	var err error
	if s.raw, err = os.OpenFile(filepath.Join(s.dir, RawFile), os.O_RDWR|os.O_APPEND, 0); err != nil {
		return fmt.Errorf("transcript: open transcript: %w", err)
	}
	tail, err := s.readRaw()
	if err != nil {
		return err
	}
	if len(s.msgs) < recorded {
		held := fmt.Sprintf("holds only %d", len(s.msgs))
		if len(s.msgs) == 0 {
			held = "is empty"
		}
		return fmt.Errorf("%w: session %s: %s %s but %s records %d messages; it was emptied or damaged outside kws, so it is not resumed and nothing was changed (files in %s)",
			ErrDamaged, s.id, RawFile, held, SummaryFile, recorded, s.dir)
	}
	if tail != nil {
		t, err := truncateTail(s.raw, RawFile, tail.Offset, tail.Line, errors.New(tail.Reason))
		if err != nil {
			return err
		}
		rec.Truncated = append(rec.Truncated, t)
	}
	removeStaleTemps(s.dir)
	if s.sent, err = os.OpenFile(filepath.Join(s.dir, SentFile), os.O_RDWR|os.O_APPEND, 0); err != nil {
		return fmt.Errorf("transcript: open call log: %w", err)
	}
	if err := s.readSentTail(rec); err != nil {
		return err
	}
	s.sum.ID, s.run.ID = s.id, s.id
	s.sum.Messages, s.sum.Calls = len(s.msgs), s.calls
	if s.sum.Status == StatusRunning {
		s.sum.Status = StatusInterrupted
		rec.Interrupted = true
	}
	s.sum.Updated = time.Now().UTC()
	if err := writeJSONAtomic(filepath.Join(s.dir, SummaryFile), s.sum); err != nil {
		return err
	}
	s.dirty = false
	return nil
}

// readRaw loads every record of raw.jsonl. A bad last line is not cut
// yet: it is returned (Offset, Line and Reason set) for open to cut once
// the transcript has been checked against the summary.
func (s *Transcript) readRaw() (*Truncation, error) {
	r := bufio.NewReaderSize(s.raw, 64<<10)
	var off int64
	var tail *Truncation
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("transcript: read %s: %w", s.raw.Name(), err)
		}
		rc, derr := decodeRecord(line, s.seq+1)
		if err == io.EOF && derr == nil {
			derr = errors.New("unterminated line")
		}
		if derr != nil {
			if _, perr := r.Peek(1); perr != io.EOF {
				return nil, fmt.Errorf("transcript: %s line %d: %w", s.raw.Name(), lineNo, derr)
			}
			tail = &Truncation{File: RawFile, Line: lineNo, Offset: off, Reason: derr.Error()}
			break
		}
		off += int64(len(line))
		s.seq = rc.Seq
		if rc.Kind == KindMessage {
			s.noteMessage(*rc.Message)
		}
	}
	s.rawSize = off
	return tail, nil
}

// decodeRecord parses one raw.jsonl line that must carry sequence want.
func decodeRecord(line []byte, want int) (Record, error) {
	var rc Record
	if err := json.Unmarshal(line, &rc); err != nil {
		return rc, fmt.Errorf("invalid JSON: %w", err)
	}
	if rc.Seq != want {
		return rc, fmt.Errorf("sequence %d, want %d", rc.Seq, want)
	}
	switch {
	case rc.Kind == KindMessage && rc.Message != nil && rc.Event == nil:
	case rc.Kind == KindEvent && rc.Event != nil && rc.Event.Type != "" && rc.Message == nil:
	default:
		return rc, fmt.Errorf("kind %q does not match its payload", rc.Kind)
	}
	return rc, nil
}

// readSentTail checks the last line of sent.jsonl, cutting it off when
// torn, and takes the call counter from the last good line. Earlier lines
// are not read: the log grows with every call and only its tail can tear.
func (s *Transcript) readSentTail(rec *Recovery) error {
	fi, err := s.sent.Stat()
	if err != nil {
		return fmt.Errorf("transcript: stat call log: %w", err)
	}
	size := fi.Size()
	for size > 0 {
		start, line, err := lastLine(s.sent, size)
		if err != nil {
			return fmt.Errorf("transcript: read %s: %w", s.sent.Name(), err)
		}
		var c SentCall
		derr := json.Unmarshal(line, &c)
		if derr == nil && !bytes.HasSuffix(line, []byte("\n")) {
			derr = errors.New("unterminated line")
		}
		if derr == nil {
			s.calls = c.Call
			break
		}
		if len(rec.Truncated) > 0 && rec.Truncated[len(rec.Truncated)-1].File == SentFile {
			return fmt.Errorf("transcript: %s: line before the torn tail is corrupt too: %w", s.sent.Name(), derr)
		}
		t, terr := truncateTail(s.sent, SentFile, start, 0, derr)
		if terr != nil {
			return terr
		}
		rec.Truncated = append(rec.Truncated, t)
		size = start
	}
	s.sentSize = size
	return nil
}

// lastLine returns the start offset and bytes of the last line of the
// first size bytes of f (a final newline belongs to the last line).
func lastLine(f *os.File, size int64) (int64, []byte, error) {
	const chunk = 64 << 10
	start := int64(0)
	buf := make([]byte, chunk)
	for pos := size - 1; pos > 0; {
		n := min(chunk, pos)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return 0, nil, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = pos + int64(i) + 1
			break
		}
	}
	line := make([]byte, size-start)
	if _, err := f.ReadAt(line, start); err != nil {
		return 0, nil, err
	}
	return start, line, nil
}

// truncateTail cuts f back to off and fsyncs it.
func truncateTail(f *os.File, name string, off int64, lineNo int, why error) (Truncation, error) {
	fi, err := f.Stat()
	if err != nil {
		return Truncation{}, fmt.Errorf("transcript: stat %s: %w", f.Name(), err)
	}
	if err := f.Truncate(off); err != nil {
		return Truncation{}, fmt.Errorf("transcript: truncate %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return Truncation{}, fmt.Errorf("transcript: sync %s: %w", f.Name(), err)
	}
	return Truncation{File: name, Line: lineNo, Offset: off, Bytes: fi.Size() - off, Reason: why.Error()}, nil
}
