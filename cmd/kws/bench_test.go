package main

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestBenchUIWithoutTmux(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := run(t, t.TempDir(), nil, "bench", "ui")
	if err == nil || !strings.Contains(err.Error(), "needs tmux") || !strings.Contains(err.Error(), "make setup") {
		t.Fatalf("without tmux: %v", err)
	}
}

func TestFrameRows(t *testing.T) {
	screen := "┌ 0 agent-1 · idle ─┐┌ 1 shell: sh ─┐\n" +
		"│› hi               ││$ ls          │\n" +
		"│                   ││a.txt         │\n" +
		"└───────────────────┘└──────────────┘\n"
	rows, ok := frameRows(screen, "1 shell")
	if !ok || len(rows) != 2 || rows[0] != "$ ls          " || rows[1] != "a.txt         " {
		t.Fatalf("frameRows = %q, %v", rows, ok)
	}
	if got := shellRows("kws", screen); got[0] != "$ ls" {
		t.Fatalf("shellRows = %q", got)
	}
	if _, ok := frameRows(screen, "2 vault"); ok {
		t.Fatal("found a pane that is not there")
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// TestCPUTime burns CPU until cpuTime (threads' schedstat, in ns) has
// risen by 50 ms, and checks that the kernel's tick count agrees to a
// couple of ticks.
func TestCPUTime(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	self := os.Getpid()
	fine0, err1 := cpuTime(self)
	ticks0, err2 := statCPUTime(self)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	x := 0
	for {
		for i := range 1 << 20 {
			x += i
		}
		fine, err := cpuTime(self)
		if err != nil {
			t.Fatal(err)
		}
		if fine-fine0 >= 50*time.Millisecond {
			break
		}
	}
	fine1, _ := cpuTime(self)
	ticks1, err := statCPUTime(self)
	if err != nil {
		t.Fatal(err)
	}
	if d := (ticks1 - ticks0) - (fine1 - fine0); d < -30*time.Millisecond || d > 30*time.Millisecond {
		t.Fatalf("schedstat says %v, /proc/PID/stat %v (x=%d)", fine1-fine0, ticks1-ticks0, x)
	}
}
