package swarm

import (
	"context"
	"fmt"

	"github.com/kwsdev/kws/agent/provider"
)

// DefaultRemoteCalls is how many model calls the swarm's agents make at
// once by default; the others wait their turn.
const DefaultRemoteCalls = 4

// Limiter caps how many model calls run at once across the swarm, so
// many agents do not flood one provider (or one rate limit).
type Limiter struct {
	sem chan struct{}
}

// NewLimiter allows n calls at once (n < 1 means DefaultRemoteCalls).
func NewLimiter(n int) *Limiter {
	if n < 1 {
		n = DefaultRemoteCalls
	}
	return &Limiter{sem: make(chan struct{}, n)}
}

// Client wraps c so each Chat waits for a free slot, or for ctx to end.
func (l *Limiter) Client(c provider.Client) provider.Client {
	return limitedClient{c: c, l: l}
}

// InUse returns the calls running now.
func (l *Limiter) InUse() int { return len(l.sem) }

type limitedClient struct {
	c provider.Client
	l *Limiter
}

// Chat runs the wrapped client's Chat inside a slot.
func (lc limitedClient) Chat(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (provider.Response, error) {
	select {
	case lc.l.sem <- struct{}{}:
	case <-ctx.Done():
		return provider.Response{}, fmt.Errorf("swarm: waiting for a model call slot: %w", ctx.Err())
	}
	defer func() { <-lc.l.sem }()
	return lc.c.Chat(ctx, req, onDelta)
}
