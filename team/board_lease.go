package team

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// boardHeld is a claim a Board renews.
type boardHeld struct {
	mu    sync.Mutex
	value []byte
	rev   uint64
	lost  bool // released, finished or expired: renew no more
}

// keep renews st's claim, which is this member's, and renews it from now
// on; a claim that changed meanwhile is errBoardConflict.
func (b *Board) keep(ctx context.Context, st *boardState) error {
	b.mu.Lock()
	h := b.held[st.n]
	b.mu.Unlock()
	if h != nil {
		return b.renew(ctx, st.n, h)
	}
	// A claim made by an earlier Board of this member: adopt it.
	rev, err := b.publishClaim(ctx, st.n, st.claimRaw, st.claimRev)
	if err != nil {
		return err
	}
	b.hold(st.n, st.claimRaw, rev)
	st.claimRev = rev
	return nil
}

// hold makes the Board renew the claim on task n now at revision rev.
func (b *Board) hold(n uint64, value []byte, rev uint64) {
	b.mu.Lock()
	old := b.held[n]
	b.held[n] = &boardHeld{value: value, rev: rev}
	b.mu.Unlock()
	if old != nil {
		// An older claim of this Board on the task is gone.
		old.mu.Lock()
		old.lost = true
		old.mu.Unlock()
	}
}

// unhold stops renewing the claim on task n.
func (b *Board) unhold(n uint64) {
	b.mu.Lock()
	h := b.held[n]
	delete(b.held, n)
	b.mu.Unlock()
	if h != nil {
		h.mu.Lock()
		h.lost = true
		h.mu.Unlock()
	}
}

// renew renews the held claim h on task n once. A claim that changed or
// vanished is lost: it is no longer renewed and the error is
// errBoardConflict.
func (b *Board) renew(ctx context.Context, n uint64, h *boardHeld) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost {
		return errBoardConflict
	}
	rev, err := b.publishClaim(ctx, n, h.value, h.rev)
	if err == nil {
		h.rev = rev
		return nil
	}
	if errors.Is(err, errBoardConflict) {
		h.lost = true
		b.mu.Lock()
		if b.held[n] == h {
			delete(b.held, n)
		}
		b.mu.Unlock()
	}
	return err
}

// drop deletes the claim c on task n if it still lives, and stops
// renewing it.
func (b *Board) drop(ctx context.Context, n uint64, c *boardClaim) error {
	b.unhold(n)
	for attempt := range boardAttempts {
		if err := boardBackoff(ctx, attempt); err != nil {
			return err
		}
		e, err := b.kv.Get(ctx, boardClaimKey(n))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var cur boardClaim
		if json.Unmarshal(e.Value(), &cur) != nil || cur.Agent != c.Agent ||
			cur.Member != c.Member || !cur.At.Equal(c.At) {
			return nil // another claim now: not ours to drop
		}
		err = b.kv.Delete(ctx, boardClaimKey(n), jetstream.LastRevision(e.Revision()))
		if err == nil {
			b.wrote(boardClaimKey(n), e.Revision()+1, nil)
			return nil
		}
		if !boardIsConflict(err) {
			return err
		}
	}
	return errors.New("team: claim changed too often; try again")
}

// renewLoop renews the held claims every third of a lease until Close.
func (b *Board) renewLoop() {
	defer b.wg.Done()
	tick := time.NewTicker(b.renewEvery)
	defer tick.Stop()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-tick.C:
		}
		b.mu.Lock()
		held := make(map[uint64]*boardHeld, len(b.held))
		for n, h := range b.held {
			held[n] = h
		}
		b.mu.Unlock()
		for n, h := range held {
			if b.ctx.Err() != nil {
				return
			}
			ctx, cancel := context.WithTimeout(b.ctx, boardCallTimeout)
			_ = b.renew(ctx, n, h) // a failed renewal retries on the next tick
			cancel()
		}
	}
}
