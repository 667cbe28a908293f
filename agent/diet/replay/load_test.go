package replay

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadWithin runs Load(path) and fails the test when it has not returned
// by the deadline: unbounded input must fail fast, not grow.
func loadWithin(t *testing.T, path string, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("Load(%s) still reading after %v", path, limit)
		return nil
	}
}

// TestLoadRefusesUnboundedInput checks that devices, pipes and oversized
// files fail with a clear reason instead of being read without end.
func TestLoadRefusesUnboundedInput(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.jsonl")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: no disk space used, Stat reports the size.
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tests := []struct {
		name, path, want string
	}{
		{"/dev/zero", "/dev/zero", `not JSON: starts with byte '\x00'`},
		{"oversized regular file", huge, "larger than 256 MiB"},
		{"folder", dir, "is a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := loadWithin(t, tt.path, 10*time.Second)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load(%s) = %v, want %q", tt.path, err, tt.want)
			}
		})
	}
}

// TestReadBoundedStopsAPipeAtTheLimit feeds a FIFO that never ends (JSON
// start, then blanks forever): reading stops once the limit is passed.
func TestReadBoundedStopsAPipeAtTheLimit(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "endless")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		if _, err := w.Write([]byte("[")); err != nil {
			return
		}
		blanks := []byte(strings.Repeat(" ", 64<<10))
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(blanks); err != nil {
				return
			}
		}
	}()
	const limit = 1 << 20
	data, err := readBounded(fifo, limit)
	close(stop)
	<-writerDone
	if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") || data != nil {
		t.Fatalf("readBounded of an endless pipe = %d bytes, %v; want the limit error", len(data), err)
	}
}
