package team

import (
	"testing"

	"github.com/nats-io/nats-server/v2/server/pse"
)

// TestPseSamplerStopped checks that nats-server's per-second sampler of
// the process finds nothing to read in kws (pse.go), so it stops.
func TestPseSamplerStopped(t *testing.T) {
	var cpu float64
	var rss, vss int64
	if err := pse.ProcUsage(&cpu, &rss, &vss); err == nil {
		t.Fatalf("nats-server's sampler still reads the process's stats (rss %d)", rss)
	}
}
