package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
)

// threeMessages creates a closed session holding messages m1, m2, m3 and
// returns it with the bytes of its raw.jsonl.
func threeMessages(t *testing.T, data string) (*Transcript, []byte) {
	t.Helper()
	return closedTranscript(t, data, 3)
}

// closedTranscript creates a closed session holding messages m1…mN and
// returns it with the bytes of its raw.jsonl.
func closedTranscript(t *testing.T, data string, n int) (*Transcript, []byte) {
	t.Helper()
	s := mustCreate(t, data)
	for i := 1; i <= n; i++ {
		if err := s.AppendMessage(provider.Message{Role: "user", Content: fmt.Sprintf("m%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(s.Dir(), RawFile))
	if err != nil {
		t.Fatal(err)
	}
	return s, raw
}

func record(t *testing.T, seq int, content string) []byte {
	t.Helper()
	line, err := encodeLine(Record{Seq: seq, Kind: KindMessage, Message: &provider.Message{Role: "user", Content: content}})
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func TestOpenCutsBadLastLine(t *testing.T) {
	tests := []struct {
		name string
		tail func(t *testing.T) []byte
	}{
		{"torn JSON", func(*testing.T) []byte { return []byte(`{"seq":4,"time":"2026-11`) }},
		{"whole record without newline", func(t *testing.T) []byte { return bytes.TrimSuffix(record(t, 4, "m4"), []byte("\n")) }},
		{"zero fill", func(*testing.T) []byte { return make([]byte, 512) }},
		{"terminated garbage", func(*testing.T) []byte { return []byte("not json\n") }},
		{"wrong sequence", func(t *testing.T) []byte { return record(t, 9, "m9") }},
		{"kind without payload", func(*testing.T) []byte { return []byte(`{"seq":4,"kind":"event"}` + "\n") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			s, raw := threeMessages(t, data)
			path := filepath.Join(s.Dir(), RawFile)
			tail := tt.tail(t)
			if err := os.WriteFile(path, append(bytes.Clone(raw), tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			r, rec := mustOpen(t, data, s.ID())
			if len(rec.Truncated) != 1 {
				t.Fatalf("truncated = %+v, want one", rec.Truncated)
			}
			tr := rec.Truncated[0]
			if tr.File != RawFile || tr.Line != 4 || tr.Offset != int64(len(raw)) || tr.Bytes != int64(len(tail)) {
				t.Errorf("truncation = %+v", tr)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, raw) {
				t.Errorf("raw.jsonl after recovery = %q, want the three good lines", got)
			}
			if err := r.AppendMessage(provider.Message{Role: "user", Content: "m4"}); err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			again, rec := mustOpen(t, data, s.ID())
			if len(rec.Truncated) != 0 || len(again.Messages()) != 4 || again.Messages()[3].Content != "m4" {
				t.Errorf("after append and reopen: recovery %+v, messages %+v", rec, again.Messages())
			}
		})
	}
}

func TestOpenRejectsCorruptMiddleLine(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(lines [][]byte) [][]byte
		wantLine string
	}{
		{"garbage", func(l [][]byte) [][]byte { l[1] = []byte("garbage\n"); return l }, "line 2"},
		{"blank", func(l [][]byte) [][]byte { l[1] = []byte("\n"); return l }, "line 2"},
		{"duplicate", func(l [][]byte) [][]byte { return append(l[:2], l[1], l[2]) }, "line 3"},
		{"missing first", func(l [][]byte) [][]byte { return l[1:] }, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			s, raw := threeMessages(t, data)
			path := filepath.Join(s.Dir(), RawFile)
			lines := bytes.SplitAfter(raw, []byte("\n"))[:3]
			edited := bytes.Join(tt.edit(lines), nil)
			if err := os.WriteFile(path, edited, 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := Open(data, s.ID())
			if err == nil || !strings.Contains(err.Error(), tt.wantLine) {
				t.Fatalf("Open = %v, want an error naming %s", err, tt.wantLine)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, edited) {
				t.Error("a failed Open changed raw.jsonl")
			}
		})
	}
}

func TestOpenCutsTornCallLog(t *testing.T) {
	data := t.TempDir()
	s := mustCreate(t, data)
	for range 2 {
		if err := s.RecordCall(SentCall{Attempts: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Dir(), SentFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"call":3,"messages":[{"ro`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, rec := mustOpen(t, data, s.ID())
	if len(rec.Truncated) != 1 || rec.Truncated[0].File != SentFile {
		t.Fatalf("recovery = %+v, want sent.jsonl cut", rec)
	}
	if err := r.RecordCall(SentCall{Attempts: 2}); err != nil {
		t.Fatal(err)
	}
	if got := r.Summary().Calls; got != 3 {
		t.Errorf("calls = %d, want 3", got)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var calls []int
	for line := range bytes.Lines(out) {
		var c SentCall
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("sent.jsonl line %q: %v", line, err)
		}
		calls = append(calls, c.Call)
	}
	if fmt.Sprint(calls) != "[1 2 3]" {
		t.Errorf("call numbers = %v, want [1 2 3]", calls)
	}
}

func TestLastLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	tests := []struct{ data, want string }{
		{"a\nb\n", "b\n"},
		{"a\nb", "b"},
		{"only\n", "only\n"},
		{"a\n" + long + "\n", long + "\n"},
		{long, long},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		start, line, err := lastLine(f, int64(len(tt.data)))
		f.Close()
		if err != nil || string(line) != tt.want || start != int64(len(tt.data)-len(tt.want)) {
			t.Errorf("lastLine(%.20q) = %d, %.20q, %v; want %.20q", tt.data, start, line, err, tt.want)
		}
	}
}
