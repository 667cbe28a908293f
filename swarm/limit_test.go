package swarm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
)

// countingClient records how many calls overlap.
type countingClient struct {
	now, peak atomic.Int32
	release   chan struct{}
}

func (c *countingClient) Chat(ctx context.Context, _ provider.Request, _ func(provider.Delta)) (provider.Response, error) {
	n := c.now.Add(1)
	defer c.now.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-c.release:
	case <-ctx.Done():
		return provider.Response{}, ctx.Err()
	}
	return provider.Response{Content: "ok"}, nil
}

func TestLimiterCapsConcurrentCalls(t *testing.T) {
	inner := &countingClient{release: make(chan struct{})}
	l := NewLimiter(2)
	c := l.Client(inner)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(context.Background(), provider.Request{}, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for l.InUse() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Chat(ctx, provider.Request{}, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call waiting for a slot past its deadline: %v", err)
	}
	close(inner.release)
	wg.Wait()
	if p := inner.peak.Load(); p != 2 {
		t.Fatalf("%d calls overlapped, want at most 2 (and 2 reached)", p)
	}
}
