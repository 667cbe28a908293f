package checkpoint_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/checkpoint"
	"github.com/kwsdev/kws/vault"
)

// reportP50 adds the median of ds to the benchmark's figures.
func reportP50(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkAfterToolOneChange measures what a checkpoint adds to a tool
// call that changed one file of a 1,000-file workspace checked out long
// before: the scan, reading and hashing the file, and recording.
func BenchmarkAfterToolOneChange(b *testing.B) {
	_, tr, root := setup(b)
	files := generate(b, root, 1000, true)
	if err := tr.BeginTurn(1, 0); err != nil {
		b.Fatal(err)
	}
	var ds []time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		put(b, root, files[0], lines(files[0], 20)+fmt.Sprintf("call %d\n", i))
		b.StartTimer()
		start := time.Now()
		cs, err := tr.AfterTool(1, fmt.Sprint(i), "edit_file")
		ds = append(ds, time.Since(start))
		if err != nil || len(cs) != 1 {
			b.Fatalf("AfterTool = %v, %v", cs, err)
		}
	}
	reportP50(b, ds)
}

// BenchmarkRewind1000 measures a full rewind, preview included, of a
// 1,000-file workspace whose every file a turn changed: each iteration
// restores all 1,000 files, alternately to before the turn and back.
func BenchmarkRewind1000(b *testing.B) {
	_, tr, root := setup(b)
	files := generate(b, root, 1000, true)
	if err := tr.BeginTurn(1, 0); err != nil {
		b.Fatal(err)
	}
	for _, rel := range files {
		put(b, root, rel, lines(rel, 19)+"changed\n")
	}
	if _, err := tr.AfterTool(1, "c1", "shell"); err != nil {
		b.Fatal(err)
	}
	var undo uint64
	var ds []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		var p *checkpoint.Plan
		var err error
		if i%2 == 0 {
			p, err = tr.Plan(1)
		} else {
			p, err = tr.PlanCheckpoint(undo)
		}
		if err != nil {
			b.Fatal(err)
		}
		res, err := tr.Apply(p, false)
		ds = append(ds, time.Since(start))
		if err != nil || len(res.Restored) != 1000 {
			b.Fatalf("Apply restored %d files, kept %d, failed %v: %v", len(res.Restored), len(res.Kept), res.Failed, err)
		}
		undo = res.Undo
	}
	reportP50(b, ds)
}

// BenchmarkFirstBeginTurn measures the first checkpoint of a 1,000-file
// workspace: reading, hashing and storing every file in a fresh vault.
func BenchmarkFirstBeginTurn(b *testing.B) {
	root := b.TempDir()
	generate(b, root, 1000, true)
	var ds []time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		v, err := vault.OpenDir(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		tr, err := checkpoint.NewTracker(v, root, "agent-1", "s")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := tr.BeginTurn(1, 0); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		b.StopTimer()
		v.Close()
		b.StartTimer()
	}
	reportP50(b, ds)
}
