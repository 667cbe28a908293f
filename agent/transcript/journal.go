package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/secrets"
)

// Record kinds in raw.jsonl.
const (
	KindMessage = "message"
	KindEvent   = "event"
)

// maxTitleRunes bounds a summary title.
const maxTitleRunes = 80

// Record is one line of raw.jsonl: a message or an event, numbered from 1
// without gaps.
type Record struct {
	Seq     int               `json:"seq"`
	Time    time.Time         `json:"time"`
	Kind    string            `json:"kind"`
	Message *provider.Message `json:"message,omitempty"`
	Event   *Event            `json:"event,omitempty"`
}

// Event is a non-message fact of the conversation, such as diet
// statistics, a compaction, token usage or a permission decision.
type Event struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// SentCall is one line of sent.jsonl: exactly what one model call sent and
// what it cost.
type SentCall struct {
	// Call numbers the calls from 1; RecordCall assigns it.
	Call int `json:"call"`
	// Time is when the call was made; RecordCall sets it when zero.
	Time     time.Time          `json:"time"`
	Messages []provider.Message `json:"messages"`
	Tools    []string           `json:"tools,omitempty"`
	Usage    provider.Usage     `json:"usage"`
	Attempts int                `json:"attempts"`
}

// AppendMessage appends m to the transcript and returns once it is on
// disk. The first user message with text also becomes the summary title.
func (s *Transcript) AppendMessage(m provider.Message) error {
	if m.Role == "" {
		return errors.New("session: append message: empty role")
	}
	m = cloneMessage(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	rec := Record{Seq: s.seq + 1, Time: time.Now().UTC(), Kind: KindMessage, Message: &m}
	if err := s.appendLine(s.raw, &s.rawSize, rec); err != nil {
		return err
	}
	s.seq++
	s.noteMessage(m)
	return nil
}

// AppendEvent appends an event of type typ whose data is data encoded as
// JSON (nil for none) and returns once it is on disk.
func (s *Transcript) AppendEvent(typ string, data any) error {
	if typ == "" {
		return errors.New("session: append event: empty type")
	}
	ev := Event{Type: typ}
	if data != nil {
		raw, err := json.Marshal(data)
		if err != nil {
			return fmt.Errorf("transcript: encode %s event: %w", typ, err)
		}
		ev.Data = raw
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	rec := Record{Seq: s.seq + 1, Time: time.Now().UTC(), Kind: KindEvent, Event: &ev}
	if err := s.appendLine(s.raw, &s.rawSize, rec); err != nil {
		return err
	}
	s.seq++
	return nil
}

// RecordCall appends c to sent.jsonl and returns once it is on disk. It
// numbers the call (overwriting c.Call) and stamps c.Time when zero.
func (s *Transcript) RecordCall(c SentCall) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	c.Call = s.calls + 1
	if c.Time.IsZero() {
		c.Time = time.Now().UTC()
	}
	if err := s.appendLine(s.sent, &s.sentSize, c); err != nil {
		return err
	}
	s.calls++
	s.sum.Calls = s.calls
	s.dirty = true
	return nil
}

// noteMessage updates the in-memory transcript and summary after m was
// appended or read back.
func (s *Transcript) noteMessage(m provider.Message) {
	s.msgs = append(s.msgs, m)
	s.sum.Messages = len(s.msgs)
	if s.sum.Title == "" && m.Role == "user" {
		s.sum.Title = Title(m.Content)
	}
	s.dirty = true
}

// appendLine writes v as one JSON line to f and fsyncs it. A failed write
// is cut back off the file so the next line starts clean; a failed fsync
// leaves the file's state unknown, so it makes the session unusable.
func (s *Transcript) appendLine(f *os.File, size *int64, v any) error {
	line, err := encodeLine(v)
	if err != nil {
		return fmt.Errorf("transcript: encode record: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		if terr := f.Truncate(*size); terr != nil {
			s.err = fmt.Errorf("transcript: %s unusable after a failed write: %w", f.Name(), terr)
		}
		return fmt.Errorf("transcript: write %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		s.err = fmt.Errorf("transcript: %s unusable after a failed fsync: %w", f.Name(), err)
		return s.err
	}
	*size += int64(len(line))
	return nil
}

// encodeLine encodes v as one line of JSON ending in a newline, leaving
// <, > and & readable (transcripts are full of tags).
func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Title returns the summary title for a first user message: its first
// non-blank line with runs of white space collapsed, its secrets redacted
// (a title is listed in plain text), cut to 80 runes (ending in "…" when
// cut).
func Title(content string) string {
	var line string
	for l := range strings.Lines(content) {
		if line = strings.Join(strings.Fields(l), " "); line != "" {
			break
		}
	}
	line = secrets.Redact(line)
	if utf8.RuneCountInString(line) <= maxTitleRunes {
		return line
	}
	r := []rune(line)
	return string(r[:maxTitleRunes-1]) + "…"
}
