package main

import (
	"strings"
	"testing"
)

// TestRewindNamesWhatItCannotDo: kws rewind of a session without
// checkpoints says so, and a request that asks nothing doable is refused
// before anything opens.
func TestRewindNamesWhatItCannotDo(t *testing.T) {
	runEnv(t)
	data := t.TempDir()
	if out, err := run(t, data, nil, "rewind", "20260101-000000-abcdef"); err == nil || !strings.Contains(err.Error(), "has none") {
		t.Fatalf("a session without checkpoints: %v\n%s", err, out)
	}
	if out, err := run(t, data, nil, "rewind", "s", "--undo", "--to", "2"); err == nil || !strings.Contains(err.Error(), "takes no turn") {
		t.Fatalf("--undo with a turn: %v\n%s", err, out)
	}
}
