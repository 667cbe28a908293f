package team

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkClaim measures claiming a fresh task on a board backed by an
// embedded JetStream server; it reports the median and 99th percentile
// claim latency.
func BenchmarkClaim(b *testing.B) {
	benchClaims(b, openTestBoard(b, boardServer(b), "m1", 0))
}

// BenchmarkClaimTeam is BenchmarkClaim on a team of three members whose
// board is kept by all three (R3): each claim is agreed by a majority.
func BenchmarkClaimTeam(b *testing.B) {
	ms := startTeam(b, 3)
	var board *Board
	eventually(b, "open the board", teamWait, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		board, err = OpenBoard(ctx, ms[1].node.JetStream(), BoardConfig{Replicas: 3, Member: "m2"})
		return err
	})
	b.Cleanup(func() { _ = board.Close() })
	benchClaims(b, board)
}

// benchClaims claims b.N fresh tasks on board, one per iteration, and
// reports the median and 99th percentile latency.
func benchClaims(b *testing.B, board *Board) {
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
