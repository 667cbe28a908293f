package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDietReplayNoFold replays the marshmallow fixtures as one swarm
// session at a 6,000-token trigger with and without --no-fold: folding
// keeps every call within the trigger plus its recent window, at a lower
// cache-weighted cost; without it refs and small messages outgrow the
// bound.
func TestDietReplayNoFold(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/trajectories/marshmallow-*.traj")
	type row struct {
		Calls     int `json:"calls"`
		Cost      int `json:"cost_tokens"`
		Over      int `json:"peak_over_bound"`
		OverCalls int `json:"calls_over_bound"`
	}
	rows := map[bool]row{}
	for _, fold := range []bool{true, false} {
		args := []string{"--json", "diet", "replay", "--swarm", "--trigger-tokens", "6000", "--concat", "m"}
		if !fold {
			args = append(args, "--no-fold")
		}
		out, err := run(t, t.TempDir(), nil, append(args, files...)...)
		if err != nil {
			t.Fatal(err)
		}
		var r row
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Calls == 0 {
			t.Fatalf("row %q: %v", out, err)
		}
		rows[fold] = r
	}
	if f := rows[true]; f.Over != 0 || f.OverCalls != 0 {
		t.Fatalf("with folding %d calls over the bound, by up to %d tokens", f.OverCalls, f.Over)
	}
	if rows[false].Over == 0 {
		t.Fatal("without folding no call went over the bound: the test no longer tells folding apart")
	}
	if rows[true].Cost >= rows[false].Cost {
		t.Fatalf("cost %d tokens folding, %d without", rows[true].Cost, rows[false].Cost)
	}
}

// TestDietReplayPageFaults runs kws diet replay --page-faults on two
// fixtures as one multi-agent session: every question's evidence reached,
// no answer a pointer.
func TestDietReplayPageFaults(t *testing.T) {
	files := []string{"../../testdata/trajectories/pydicom-1458.traj", "../../testdata/trajectories/marshmallow-1867-default.traj"}
	out, err := run(t, t.TempDir(), nil, append([]string{"diet", "replay", "--page-faults", "--swarm", "--concat", "two", "--trigger-tokens", "8000"}, files...)...)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "within_one_pct") || !strings.HasSuffix(strings.TrimSpace(lines[1]), " 0") {
		t.Fatalf("page-fault table:\n%s", out)
	}
	f := strings.Fields(lines[1])
	if f[0] != "two" || f[1] == "0" || f[6] != "0" {
		t.Fatalf("questions %s, unreachable %s:\n%s", f[1], f[6], out)
	}
}
