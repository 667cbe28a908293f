package team

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkClaim measures claiming a fresh task on a board backed by an
// embedded JetStream server; it reports the median and 99th percentile
// claim latency.
func BenchmarkClaim(b *testing.B) {
	board := openTestBoard(b, boardServer(b), "m1", 0)
	ids := make([]string, b.N)
	for i := range ids {
		task, err := board.AddTask(fmt.Sprintf("task %d", i), "", "")
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = task.ID
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := board.ClaimTask(ids[i], "agent"); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return float64(lat[int(q*float64(len(lat)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
