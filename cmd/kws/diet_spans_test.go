package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestDietReplayNoSpans replays the marshmallow fixtures as one session
// with and without --no-spans: the same calls, a lower cache-weighted
// cost with spans (the figure of merit; spans can hold an epoch off, so
// the raw sent total may grow while the cost falls).
func TestDietReplayNoSpans(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/trajectories/marshmallow-*.traj")
	sent := map[bool]int{}
	for _, spans := range []bool{true, false} {
		args := []string{"--json", "diet", "replay", "--concat", "m"}
		if !spans {
			args = append(args, "--no-spans")
		}
		out, err := run(t, t.TempDir(), nil, append(args, files...)...)
		if err != nil {
			t.Fatal(err)
		}
		var row struct {
			Calls int `json:"calls"`
			Cost  int `json:"cost_tokens"`
		}
		if err := json.Unmarshal([]byte(out), &row); err != nil || row.Calls == 0 {
			t.Fatalf("row %q: %v", out, err)
		}
		sent[spans] = row.Cost
	}
	if sent[true] >= sent[false] {
		t.Fatalf("cost %d tokens with spans, %d without", sent[true], sent[false])
	}
}
