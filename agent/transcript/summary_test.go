package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeSummary(t *testing.T, data, id, content string) {
	t.Helper()
	dir := filepath.Join(Dir(data), id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if content != "" {
		if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestList(t *testing.T) {
	data := t.TempDir()
	if got, err := List(data); err != nil || got != nil {
		t.Fatalf("List(empty) = %v, %v", got, err)
	}
	writeSummary(t, data, "20010101-000000-aaaaaa", `{"id":"x","created":"2001-01-01T00:00:00Z","status":"done"}`)
	writeSummary(t, data, "20010301-000000-bbbbbb", `{"created":"2001-03-01T00:00:00Z","status":"error"}`)
	writeSummary(t, data, "20010301-000000-cccccc", `{"created":"2001-03-01T00:00:00Z","status":"done"}`)
	writeSummary(t, data, "20010201-000000-dddddd", `{"created": 2026`)
	writeSummary(t, data, "20010401-000000-eeeeee", "")
	if err := os.WriteFile(filepath.Join(Dir(data), "stray.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	live := mustCreate(t, data)
	defer live.Close()

	got, err := List(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, status string }{
		{live.ID(), StatusRunning},
		{"20010301-000000-cccccc", StatusDone},
		{"20010301-000000-bbbbbb", StatusError},
		{"20010201-000000-dddddd", StatusCorrupt},
		{"20010101-000000-aaaaaa", StatusDone},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %+v, want %d sessions", got, len(want))
	}
	for i, w := range want {
		if got[i].ID != w.id || got[i].Status != w.status {
			t.Errorf("List[%d] = %s %s, want %s %s", i, got[i].ID, got[i].Status, w.id, w.status)
		}
	}
	if c := got[3]; c.LastError == "" || !c.Created.Equal(time.Date(2001, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("corrupt entry = %+v, want a reason and the id's time", c)
	}
}

func TestWriteAtomicKeepsOldFileOnFailure(t *testing.T) {
	boom := errors.New("disk full")
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		write func(w io.Writer) error
	}{
		{"write fails midway", nil, func(w io.Writer) error {
			_, _ = w.Write([]byte(`{"id":"partial`))
			return boom
		}},
		{"rename onto a folder fails", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(path, "keep"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, func(w io.Writer) error {
			_, err := w.Write([]byte("{}"))
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, SummaryFile)
			old := []byte(`{"id":"old"}`)
			if err := os.WriteFile(path, old, 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, path)
			}
			before := listDir(t, dir)
			if err := writeAtomic(path, tt.write); err == nil {
				t.Fatal("writeAtomic succeeded, want an error")
			}
			if after := listDir(t, dir); after != before {
				t.Errorf("folder after failure = %s, want %s", after, before)
			}
			if tt.setup == nil {
				if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
					t.Errorf("file after failure = %q, want %q", got, old)
				}
			}
		})
	}
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}

func TestFailedSetLeavesStateAlone(t *testing.T) {
	s := mustCreate(t, t.TempDir())
	defer s.Close()
	runPath := filepath.Join(s.Dir(), RunFile)
	sumPath := filepath.Join(s.Dir(), SummaryFile)
	oldRun, _ := os.ReadFile(runPath)
	oldSum, _ := os.ReadFile(sumPath)

	if err := s.SetRun(func(r *Run) { r.Profile = make(chan int); r.Totals.Calls = 7 }); err == nil {
		t.Error("SetRun with an unencodable profile succeeded")
	}
	if err := s.SetSummary(func(sum *Summary) { sum.Status = "finished"; sum.Title = "t" }); err == nil {
		t.Error("SetSummary with an unknown status succeeded")
	}
	if got, _ := os.ReadFile(runPath); !bytes.Equal(got, oldRun) {
		t.Errorf("run.json changed: %s", got)
	}
	if got, _ := os.ReadFile(sumPath); !bytes.Equal(got, oldSum) {
		t.Errorf("summary.json changed: %s", got)
	}
	if s.Run().Totals.Calls != 0 || s.Summary().Title != "" {
		t.Errorf("in-memory state changed: %+v %+v", s.Run(), s.Summary())
	}

	if err := s.SetSummary(func(sum *Summary) { sum.Messages, sum.ID = 99, "other"; sum.Status = StatusError }); err != nil {
		t.Fatal(err)
	}
	if got := readSummaryFile(t, s); got.Messages != 0 || got.ID != s.ID() || got.Status != StatusError {
		t.Errorf("summary = %+v, want the session's id and counters kept", got)
	}
}
