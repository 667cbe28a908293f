package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestVaultSearchEvalPrintsHitRates(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/trajectories/marshmallow-1867-default*.traj")
	if len(files) < 3 {
		t.Fatalf("fixtures: %v", files)
	}
	out, err := run(t, t.TempDir(), nil, append([]string{"--json", "vault", "search-eval", "--split"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want TUNE, MEASURE and ALL rows: %q", out)
	}
	var all evalRow
	if err := json.Unmarshal([]byte(lines[2]), &all); err != nil || all.Set != "ALL" || all.Files != len(files) {
		t.Fatalf("ALL row %q: %v", lines[2], err)
	}
	if all.Questions < 10 || all.KWS.Top3*2 < all.Questions || all.BM25.Questions != all.Questions {
		t.Fatalf("ALL row: %+v", all)
	}
	text, err := run(t, t.TempDir(), nil, append([]string{"vault", "search-eval"}, files[0])...)
	if err != nil || !strings.Contains(text, "KWS TOP-3") || !strings.Contains(text, "BM25 TOP-3") {
		t.Fatalf("table: %q %v", text, err)
	}
}
