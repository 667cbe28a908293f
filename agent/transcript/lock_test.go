package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
)

// sessionFiles returns the bytes of every file in the session folder but
// the lock file.
func sessionFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{RawFile, SentFile, SummaryFile, RunFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	return out
}

// assertUnchanged fails when a session file differs from before.
func assertUnchanged(t *testing.T, dir string, before map[string][]byte) {
	t.Helper()
	for name, b := range sessionFiles(t, dir) {
		if !bytes.Equal(b, before[name]) {
			t.Errorf("%s changed:\nbefore %q\nafter  %q", name, before[name], b)
		}
	}
}

// TestOpenRefusesARunningTranscript opens a session that is still open: Open
// fails at once naming the holder's pid, and the session is left running
// with every file as it was. Once the holder closes it, Open works.
func TestOpenRefusesARunningTranscript(t *testing.T) {
	data := t.TempDir()
	s := mustCreate(t, data)
	if err := s.AppendMessage(provider.Message{Role: "user", Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	before := sessionFiles(t, s.Dir())
	_, _, err := Open(data, s.ID())
	var re *RunningError
	if !errors.Is(err, ErrRunning) || !errors.As(err, &re) || re.PID != os.Getpid() {
		t.Fatalf("Open of an open session = %v, want a RunningError with pid %d", err, os.Getpid())
	}
	if want := fmt.Sprintf("session %s is running (pid %d)", s.ID(), os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	assertUnchanged(t, s.Dir(), before)
	if err := s.AppendMessage(provider.Message{Role: "assistant", Content: "still mine"}); err != nil {
		t.Fatalf("the holder cannot write after a refused Open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, rec := mustOpen(t, data, s.ID())
	if len(r.Messages()) != 2 || !rec.Interrupted {
		t.Errorf("after Close: %d messages, recovery %+v", len(r.Messages()), rec)
	}
	if _, _, err := Open(data, s.ID()); !errors.Is(err, ErrRunning) {
		t.Errorf("second Open = %v, want ErrRunning", err)
	}
}

// TestOpenRefusesALostTranscript opens sessions whose raw.jsonl lost
// messages that summary.json records: Open fails with ErrDamaged saying
// how many are missing, and changes nothing (a torn tail included).
func TestOpenRefusesALostTranscript(t *testing.T) {
	tests := []struct {
		name string
		cut  func(raw []byte) []byte
		want string
	}{
		{"emptied", func([]byte) []byte { return nil }, "raw.jsonl is empty but summary.json records 6 messages"},
		{"cut to two lines", func(raw []byte) []byte { return firstLines(raw, 2) }, "holds only 2"},
		{"cut with a torn tail", func(raw []byte) []byte { return append(firstLines(raw, 3), `{"seq":4,"ti`...) }, "holds only 3"},
		{"zero-filled", func(raw []byte) []byte { return make([]byte, len(raw)) }, "is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			s, raw := closedTranscript(t, data, 6)
			path := filepath.Join(s.Dir(), RawFile)
			if err := os.WriteFile(path, tt.cut(raw), 0o600); err != nil {
				t.Fatal(err)
			}
			before := sessionFiles(t, s.Dir())
			_, _, err := Open(data, s.ID())
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was changed") {
				t.Fatalf("Open = %v, want ErrDamaged saying %q", err, tt.want)
			}
			assertUnchanged(t, s.Dir(), before)
			if sum := readSummaryFile(t, s); sum.Messages != 6 || sum.Status != StatusRunning {
				t.Errorf("summary = %+v, want it untouched", sum)
			}
		})
	}
}

// firstLines returns the first n lines of b.
func firstLines(b []byte, n int) []byte {
	end := 0
	for range n {
		end += bytes.IndexByte(b[end:], '\n') + 1
	}
	return b[:end]
}

func TestOpenUnknownTranscript(t *testing.T) {
	if _, _, err := Open(t.TempDir(), "20260101-000000-abcdef"); err == nil || !strings.Contains(err.Error(), "no transcript 20260101-000000-abcdef") {
		t.Fatalf("Open of a missing transcript = %v", err)
	}
}

// TestHeld tells a session whose process holds its lock from one whose
// process died (its lock free), and an unknown session from both.
func TestHeld(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !Held(dir, s.ID()) {
		t.Errorf("an open session is not held")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if Held(dir, s.ID()) {
		t.Errorf("a closed session is still held")
	}
	if Held(dir, "no-such-session") {
		t.Errorf("an unknown session is held")
	}
}
