package team

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// teamWait bounds the waits for a team's state: a cluster elects its
// leaders in seconds, much more on a loaded machine under the race
// detector.
const teamWait = 2 * time.Minute

// eventually retries fn until it succeeds, failing the test with fn's
// last error once d has passed. Every wait of the team's tests for a
// state goes through it.
func eventually(t testing.TB, what string, d time.Duration, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGoroutines waits until no more goroutines run than before, as after
// closing what started them, and fails with their stacks otherwise.
func waitGoroutines(t testing.TB, before int) {
	t.Helper()
	eventually(t, "the goroutines to end", teamWait, func() error {
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			return fmt.Errorf("%d goroutines, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
		return nil
	})
}

var testLog = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

// shareBlocks opens the blocks' sharing of a fresh vault on member m.
func shareBlocks(t testing.TB, m *testMember, v *vault.Vault, replicas int) *Blocks {
	t.Helper()
	var b *Blocks
	eventually(t, m.cfg.Member+": open the blocks' store", teamWait, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		b, err = OpenBlocks(ctx, m.node.JetStream(), v, BlocksConfig{Replicas: replicas}, testLog)
		return err
	})
	t.Cleanup(func() { _ = b.Close() })
	select {
	case <-b.Synced():
	case <-time.After(teamWait):
		t.Fatalf("%s: the first sync did not end", m.cfg.Member)
	}
	return b
}

// TestBlocksReachEveryMemberExactly stores a 1 MiB block on m1 that an
// agent on m3 reads at once and m2 keeps by itself; a sensitive block
// stays on m1 until the user shares it.
func TestBlocksReachEveryMemberExactly(t *testing.T) {
	ms := startTeam(t, 3)
	vs := []*vault.Vault{vaulttest.MustOpen(t), vaulttest.MustOpen(t), vaulttest.MustOpen(t)}
	var bs []*Blocks
	for i, m := range ms {
		bs = append(bs, shareBlocks(t, m, vs[i], 3))
	}
	big := make([]byte, 1<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	id, err := vs[0].Put(big, vault.Meta{Kind: "tool", Agent: "agent-1", Command: "cat big.bin"})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := vs[0].Put([]byte("AWS_SECRET_ACCESS_KEY=..."), vault.Meta{Kind: "tool", Sensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	// The agent on m3 asks at once: the vault fetches what its watcher
	// may not have kept yet.
	eventually(t, "m3 reads the block", teamWait, func() error {
		got, err := vs[2].Get(id)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, big) {
			return errors.New("other bytes")
		}
		return nil
	})
	if m, err := vs[2].Meta(id); err != nil || m.Command != "cat big.bin" {
		t.Fatalf("m3's meta: %+v, %v", m, err)
	}
	// m2 keeps it by itself.
	eventually(t, "m2 keeps the block", teamWait, func() error {
		if !vs[1].Has(id) {
			return errors.New("not yet")
		}
		return nil
	})
	// A block stored later on m2 reaches m1; the sensitive one never
	// leaves m1.
	id2, err := vs[1].Put([]byte("m2's test log\nFAIL\n"), vault.Meta{Kind: "tool"})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "m1 keeps m2's block", teamWait, func() error {
		if !vs[0].Has(id2) {
			return errors.New("not yet")
		}
		return nil
	})
	if _, err := vs[2].Get(secret); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("the sensitive block on m3: %v, want ErrNotFound", err)
	}
	if vs[1].Has(secret) || vs[2].Has(secret) {
		t.Fatal("a sensitive block left its member")
	}
	// The user shares it: it reaches the others, still marked sensitive.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := bs[0].Share(ctx, secret, "m1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "m3 reads the shared block", teamWait, func() error {
		_, err := vs[2].Get(secret)
		return err
	})
	if m, err := vs[2].Meta(secret); err != nil || !m.Sensitive {
		t.Fatalf("the shared block on m3: %+v, %v (want it still sensitive)", m, err)
	}
}

func TestMemberCatchesUpOnBlocksAfterBeingDown(t *testing.T) {
	ms := startTeam(t, 3)
	vs := []*vault.Vault{vaulttest.MustOpen(t), vaulttest.MustOpen(t), vaulttest.MustOpen(t)}
	var bs []*Blocks
	for i, m := range ms {
		bs = append(bs, shareBlocks(t, m, vs[i], 3))
	}
	// m2 goes down: its sharing and its node stop.
	_ = bs[1].Close()
	ms[1].stop()
	var ids []string
	for i := range 5 {
		id, err := vs[0].Put(fmt.Appendf(nil, "block %d stored while m2 was down", i), vault.Meta{Kind: "tool"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// The two members left keep the blocks (a majority).
	eventually(t, "m3 keeps the blocks", teamWait, func() error {
		for _, id := range ids {
			if !vs[2].Has(id) {
				return fmt.Errorf("%s not yet", id)
			}
		}
		return nil
	})
	ms[1].start(t)
	ms[1].ready(t)
	shareBlocks(t, ms[1], vs[1], 3)
	eventually(t, "m2 catches up", teamWait, func() error {
		for _, id := range ids {
			if !vs[1].Has(id) {
				return fmt.Errorf("m2 lacks %s", id)
			}
		}
		return nil
	})
}

// BenchmarkFetchMiB fetches a 1 MiB block that another member stored,
// as the vault does for a ctx_get of a block it lacks, and reports the
// median.
func BenchmarkFetchMiB(b *testing.B) {
	ms := startTeam(b, 3)
	v1, v3 := vaulttest.MustOpen(b), vaulttest.MustOpen(b)
	shareBlocks(b, ms[0], v1, 3)
	b3 := shareBlocks(b, ms[2], v3, 3)
	big := make([]byte, 1<<20)
	if _, err := rand.Read(big); err != nil {
		b.Fatal(err)
	}
	id, err := v1.Put(big, vault.Meta{Kind: "tool"})
	if err != nil {
		b.Fatal(err)
	}
	eventually(b, "m3 sees the block", teamWait, func() error {
		_, _, err := b3.Fetch(id)
		return err
	})
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		data, _, err := b3.Fetch(id)
		times = append(times, time.Since(t0))
		if err != nil || len(data) != len(big) {
			b.Fatalf("fetch: %d bytes, %v", len(data), err)
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}
