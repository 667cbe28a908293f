package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/kwsdev/kws/vault"
)

// boardWrite is a write of this Board: the key's value from revision rev
// on, nil when the key was deleted at rev-1.
type boardWrite struct {
	rev   uint64
	value []byte
	at    time.Time
}

// boardOwnWrites is how long ListTasks shows a write of this Board over an
// older copy; a replica that lags longer is a failing one.
const boardOwnWrites = 5 * time.Second

// wrote records this Board's write of key.
func (b *Board) wrote(key string, rev uint64, value []byte) {
	b.mu.Lock()
	b.writes[key] = boardWrite{rev: rev, value: value, at: time.Now()}
	b.mu.Unlock()
}

// ownWrites lays this Board's recent writes over what ListTasks read
// where the copy it read is older, and forgets those the copy has caught
// up with or that are older than boardOwnWrites.
func (b *Board) ownWrites(states map[uint64]*boardState, claims map[uint64]*boardClaim, claimRevs map[uint64]uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for key, w := range b.writes {
		var listed uint64
		task, isTask := strings.CutPrefix(key, boardTaskPrefix)
		claim, _ := strings.CutPrefix(key, boardClaimPre)
		n, err := strconv.ParseUint(task, 10, 64)
		if !isTask {
			n, err = strconv.ParseUint(claim, 10, 64)
		}
		switch {
		case err != nil:
		case isTask && states[n] != nil:
			listed = states[n].taskRev
		case !isTask:
			listed = claimRevs[n]
		}
		if err != nil || listed >= w.rev || time.Since(w.at) > boardOwnWrites {
			delete(b.writes, key)
			continue
		}
		switch {
		case isTask && w.value != nil:
			st := &boardState{n: n, taskRev: w.rev}
			if json.Unmarshal(w.value, &st.task) == nil {
				states[n] = st
			}
		case !isTask && w.value == nil:
			delete(claims, n)
		case !isTask:
			c := new(boardClaim)
			if json.Unmarshal(w.value, c) == nil {
				claims[n] = c
			}
		}
	}
}

// load reads the task n and its live claim.
func (b *Board) load(ctx context.Context, n uint64) (*boardState, error) {
	id := boardID(n)
	e, err := b.kv.Get(ctx, boardTaskKey(n))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("%w: %s", vault.ErrNoTask, id)
	}
	if err != nil {
		return nil, fmt.Errorf("team: read task %s: %w", id, err)
	}
	st := &boardState{n: n, taskRev: e.Revision()}
	if err := json.Unmarshal(e.Value(), &st.task); err != nil {
		return nil, fmt.Errorf("team: board entry %s: %w", id, err)
	}
	ce, err := b.kv.Get(ctx, boardClaimKey(n))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return st, nil
	case err != nil:
		return nil, fmt.Errorf("team: read claim on %s: %w", id, err)
	}
	c := new(boardClaim)
	if err := json.Unmarshal(ce.Value(), c); err != nil {
		return nil, fmt.Errorf("team: board claim %s: %w", id, err)
	}
	st.claim, st.claimRev, st.claimRaw = c, ce.Revision(), ce.Value()
	return st, nil
}

// putTask stores t as task n if n is still at revision rev; a lost race
// is errBoardConflict.
func (b *Board) putTask(ctx context.Context, n uint64, t vault.Task, rev uint64) (uint64, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return 0, fmt.Errorf("team: encode task: %w", err)
	}
	next, err := b.kv.Update(ctx, boardTaskKey(n), raw, rev)
	if boardIsConflict(err) {
		return 0, fmt.Errorf("%w: %w", errBoardConflict, err)
	}
	if err != nil {
		return 0, fmt.Errorf("team: store task %s: %w", t.ID, err)
	}
	b.wrote(boardTaskKey(n), next, raw)
	return next, nil
}

// nextSeq takes the next task number from the counter key.
func (b *Board) nextSeq(ctx context.Context) (uint64, error) {
	for attempt := range boardAttempts {
		if err := boardBackoff(ctx, attempt); err != nil {
			return 0, fmt.Errorf("team: board sequence: %w", err)
		}
		e, err := b.kv.Get(ctx, boardSeqKey)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			_, err = b.kv.Create(ctx, boardSeqKey, []byte("1"))
			if boardIsConflict(err) {
				continue
			}
			if err != nil {
				return 0, fmt.Errorf("team: board sequence: %w", err)
			}
			return 1, nil
		}
		if err != nil {
			return 0, fmt.Errorf("team: board sequence: %w", err)
		}
		cur, err := strconv.ParseUint(string(e.Value()), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("team: board sequence %q: %w", e.Value(), err)
		}
		_, err = b.kv.Update(ctx, boardSeqKey, []byte(strconv.FormatUint(cur+1, 10)), e.Revision())
		if boardIsConflict(err) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("team: board sequence: %w", err)
		}
		return cur + 1, nil
	}
	return 0, errors.New("team: board sequence: too much contention; try again")
}

// createClaim creates the claim of agent on member for task n with a TTL
// of one lease; an existing claim is errBoardConflict.
func (b *Board) createClaim(ctx context.Context, n uint64, agent, member string) (*boardClaim, []byte, uint64, error) {
	c := &boardClaim{Agent: agent, Member: member, At: time.Now().UTC()}
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("team: encode claim: %w", err)
	}
	rev, err := b.kv.Create(ctx, boardClaimKey(n), raw, jetstream.KeyTTL(b.lease))
	if boardIsConflict(err) {
		return nil, nil, 0, fmt.Errorf("%w: %w", errBoardConflict, err)
	}
	if err != nil {
		return nil, nil, 0, err
	}
	b.wrote(boardClaimKey(n), rev, raw)
	return c, raw, rev, nil
}

// publishClaim writes value to claim n if it is still at revision rev,
// with a fresh TTL of one lease, and returns the new revision.
func (b *Board) publishClaim(ctx context.Context, n uint64, value []byte, rev uint64) (uint64, error) {
	msg := nats.NewMsg(b.claimSubj + strconv.FormatUint(n, 10))
	msg.Data = value
	ack, err := b.js.PublishMsg(ctx, msg,
		jetstream.WithExpectLastSequencePerSubject(rev), jetstream.WithMsgTTL(b.lease))
	if boardIsConflict(err) {
		return 0, fmt.Errorf("%w: %w", errBoardConflict, err)
	}
	if err != nil {
		return 0, err
	}
	b.wrote(boardClaimKey(n), ack.Sequence, value)
	return ack.Sequence, nil
}

// watch signals Changed for every change of a task or claim key until
// Close. The replay of the keys' current values is no change, nor is a
// claim renewal, which stores the same value again.
func (b *Board) watch(w jetstream.KeyWatcher) {
	defer b.wg.Done()
	defer boardStopWatch(w)
	claims := make(map[string]string) // live claim values by key
	replay := true
	for {
		var e jetstream.KeyValueEntry
		select {
		case <-b.ctx.Done():
			return
		case u, ok := <-w.Updates():
			if !ok {
				return
			}
			e = u
		}
		if e == nil {
			replay = false
			continue
		}
		if k := e.Key(); strings.HasPrefix(k, boardClaimPre) {
			if e.Operation() != jetstream.KeyValuePut {
				delete(claims, k)
			} else if v := string(e.Value()); claims[k] == v {
				continue
			} else {
				claims[k] = v
			}
		}
		if !replay {
			select {
			case b.changed <- struct{}{}:
			default:
			}
		}
	}
}

// boardStopWatch stops w and drains what it still delivers, so that its
// delivery goroutine, which blocks on a full channel, can end.
func boardStopWatch(w jetstream.KeyWatcher) {
	_ = w.Stop()
	timeout := time.NewTimer(time.Second)
	defer timeout.Stop()
	for {
		select {
		case _, ok := <-w.Updates():
			if !ok {
				return
			}
		case <-timeout.C:
			return
		}
	}
}

// boardIsConflict reports whether err is a lost compare-and-swap: the key
// exists, or is not at the expected revision.
func boardIsConflict(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, errBoardConflict) || errors.Is(err, jetstream.ErrKeyExists) ||
		errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// boardBackoff waits a little before a retry, longer after each; the first
// attempt does not wait.
func boardBackoff(ctx context.Context, attempt int) error {
	if attempt == 0 {
		return ctx.Err()
	}
	d := time.Duration(1+rand.IntN(min(attempt, 10))) * time.Millisecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// boardBusy is the error of an operation that lost every retry.
func boardBusy(id string) error {
	return fmt.Errorf("team: %s changed too often; try again", id)
}

// boardID returns the id of task n.
func boardID(n uint64) string { return "t" + strconv.FormatUint(n, 10) }

// boardTaskKey returns the key of task n.
func boardTaskKey(n uint64) string { return boardTaskPrefix + strconv.FormatUint(n, 10) }

// boardClaimKey returns the key of the claim on task n.
func boardClaimKey(n uint64) string { return boardClaimPre + strconv.FormatUint(n, 10) }

// boardSplit splits an "agent@member" owner.
func boardSplit(owner string) (agent, member string) {
	i := strings.LastIndexByte(owner, '@')
	if i < 0 {
		return owner, ""
	}
	return owner[:i], owner[i+1:]
}

// boardSeq parses a task id ("t3", "T3" or "3") into its number.
func boardSeq(id string) (uint64, error) {
	s := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(id)), "t")
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%w: %q (want t1, t2, …)", vault.ErrNoTask, id)
	}
	return n, nil
}
