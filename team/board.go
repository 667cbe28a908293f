package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/kwsdev/kws/vault"
)

// Board defaults and limits.
const (
	boardDefaultBucket = "KWS_BOARD"
	boardDefaultLease  = 15 * time.Second
	// boardCallTimeout bounds one board operation, retries included.
	boardCallTimeout = 5 * time.Second
	// boardAttempts bounds the compare-and-swap retries of one operation.
	boardAttempts = 32

	boardSeqKey     = "seq"
	boardTaskPrefix = "task."
	boardClaimPre   = "claim."
)

// ErrBoardClosed is returned by the methods of a Board after Close.
var ErrBoardClosed = errors.New("team: the board is closed")

// errBoardConflict reports a lost compare-and-swap; the operation retries.
var errBoardConflict = errors.New("team: board entry changed concurrently")

// BoardConfig configures a team task board opened with OpenBoard.
type BoardConfig struct {
	// Bucket is the name of the key-value bucket that holds the board;
	// "KWS_BOARD" when empty.
	Bucket string
	// Replicas is the number of stream replicas of the bucket; 1 when 0.
	Replicas int
	// Lease is how long a claim lives without renewal; 15s when 0. The
	// server counts message TTLs in whole seconds, so it is truncated to
	// seconds and must be at least one second.
	Lease time.Duration
	// Member is this kws server's member name in the team. It is required
	// and may not contain '@', which separates agent and member in owner
	// names.
	Member string
}

// Board is the team's shared task board, kept in a NATS JetStream
// key-value bucket so that the kws servers of a team share one board. It
// implements swarm.BoardStore with the semantics of the vault's board.
//
// Tasks are stored as open or done; a task is claimed while a claim key
// for it lives. A claim is a lease that the Board which made it renews
// until the task is released or done, or the Board is closed; the claim
// of a member that stops renewing expires and the task is open again.
//
// Agent names repeat between hosts, so an agent is identified by its name
// and the member it runs on: the owner of a task is shown as "agent" when
// the agent runs on this Board's member and as "agent@member" otherwise.
// A Board is safe for many goroutines.
type Board struct {
	js         jetstream.JetStream
	kv         jetstream.KeyValue
	member     string
	lease      time.Duration
	claimSubj  string // KV subject prefix of claim keys: "$KV.<bucket>.claim."
	changed    chan struct{}
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	closeOnce  sync.Once
	mu         sync.Mutex
	held       map[uint64]*boardHeld // claims this Board renews, by task number
	renewEvery time.Duration
	// writes are this Board's latest writes by key, which ListTasks shows
	// even when the copy it reads has not caught up yet (a replica of
	// the bucket may answer a read): an agent sees its own claim.
	writes map[string]boardWrite
}

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

// boardHeld is a claim a Board renews.
type boardHeld struct {
	mu    sync.Mutex
	value []byte
	rev   uint64
	lost  bool // released, finished or expired: renew no more
}

// boardClaim is the value of a claim key.
type boardClaim struct {
	Agent  string    `json:"agent"`
	Member string    `json:"member"`
	At     time.Time `json:"at"`
}

// owner returns the claim's holder as "agent@member".
func (c *boardClaim) owner() string { return c.Agent + "@" + c.Member }

// boardState is one task as read from the bucket.
type boardState struct {
	n        uint64
	task     vault.Task // as stored: open or done, owners as "agent@member"
	taskRev  uint64
	claim    *boardClaim // nil without a live claim
	claimRev uint64
	claimRaw []byte
}

// owner returns the task's owner as "agent@member", "" when nobody holds
// it: the finisher of a done task, else the holder of a live claim.
func (s *boardState) owner() string {
	switch {
	case s.task.Status == vault.TaskDone:
		return s.task.Owner
	case s.claim != nil:
		return s.claim.owner()
	}
	return ""
}

// status returns the task's status as the vault shows it.
func (s *boardState) status() vault.TaskStatus {
	switch {
	case s.task.Status == vault.TaskDone:
		return vault.TaskDone
	case s.claim != nil:
		return vault.TaskClaimed
	}
	return vault.TaskOpen
}

// OpenBoard creates the board's bucket in js, or binds to it when it
// exists, watches it for changes and starts renewing the claims this
// Board makes. Close the Board to stop both.
func OpenBoard(ctx context.Context, js jetstream.JetStream, cfg BoardConfig) (*Board, error) {
	if cfg.Member == "" || strings.Contains(cfg.Member, "@") {
		return nil, fmt.Errorf("team: board member name %q: want a non-empty name without '@'", cfg.Member)
	}
	if cfg.Bucket == "" {
		cfg.Bucket = boardDefaultBucket
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.Lease == 0 {
		cfg.Lease = boardDefaultLease
	}
	cfg.Lease = cfg.Lease.Truncate(time.Second)
	if cfg.Lease < time.Second {
		return nil, fmt.Errorf("team: board lease %v: want at least one second", cfg.Lease)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:         cfg.Bucket,
		Description:    "kws team task board",
		History:        1,
		Replicas:       cfg.Replicas,
		LimitMarkerTTL: cfg.Lease,
	})
	if err != nil {
		return nil, fmt.Errorf("team: open board bucket %s: %w", cfg.Bucket, err)
	}
	bctx, cancel := context.WithCancel(context.Background())
	b := &Board{
		js:         js,
		kv:         kv,
		member:     cfg.Member,
		lease:      cfg.Lease,
		claimSubj:  "$KV." + cfg.Bucket + "." + boardClaimPre,
		changed:    make(chan struct{}, 1),
		ctx:        bctx,
		cancel:     cancel,
		held:       make(map[uint64]*boardHeld),
		renewEvery: cfg.Lease / 3,
		writes:     make(map[string]boardWrite),
	}
	w, err := kv.WatchFiltered(bctx, []string{boardTaskPrefix + "*", boardClaimPre + "*"})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("team: watch board bucket %s: %w", cfg.Bucket, err)
	}
	b.wg.Add(2)
	go b.watch(w)
	go b.renewLoop()
	return b, nil
}

// Close stops renewing this Board's claims, which then expire after their
// lease, and stops watching the bucket; Changed's channel is closed. It
// waits for the Board's goroutines and may be called more than once.
func (b *Board) Close() error {
	b.closeOnce.Do(func() {
		b.cancel()
		b.wg.Wait()
		close(b.changed)
	})
	return nil
}

// Changed returns a channel that receives a signal each time a task or a
// claim on the board changes, made by any member. Signals coalesce: the
// channel holds at most one. Renewals of a claim are not changes. The
// channel is closed by Close.
func (b *Board) Changed() <-chan struct{} { return b.changed }

// AddTask puts a new open task on the board and returns it; createdBy is
// the agent adding it, empty for the user.
func (b *Board) AddTask(title, detail, createdBy string) (vault.Task, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return vault.Task{}, fmt.Errorf("%w: the title is empty", vault.ErrBadTask)
	}
	ctx, cancel, err := b.call()
	if err != nil {
		return vault.Task{}, err
	}
	defer cancel()
	n, err := b.nextSeq(ctx)
	if err != nil {
		return vault.Task{}, err
	}
	now := time.Now().UTC()
	t := vault.Task{ID: boardID(n), Title: title, Detail: strings.TrimSpace(detail),
		Status: vault.TaskOpen, CreatedBy: b.canon(createdBy), Created: now, Updated: now}
	raw, err := json.Marshal(t)
	if err != nil {
		return vault.Task{}, fmt.Errorf("team: encode task: %w", err)
	}
	rev, err := b.kv.Create(ctx, boardTaskKey(n), raw)
	if err != nil {
		return vault.Task{}, fmt.Errorf("team: add task %s: %w", t.ID, err)
	}
	b.wrote(boardTaskKey(n), rev, raw)
	return b.view(&boardState{n: n, task: t}), nil
}

// ClaimTask makes agent the owner of the task id. Claiming a task the
// agent already holds renews the claim; a task another agent holds fails
// with vault.ErrClaimed naming the owner, a finished one with
// vault.ErrTaskDone.
func (b *Board) ClaimTask(id, agent string) (vault.Task, error) {
	if agent == "" {
		return vault.Task{}, fmt.Errorf("%w: only an agent can claim %s", vault.ErrBadTask, id)
	}
	n, err := boardSeq(id)
	if err != nil {
		return vault.Task{}, err
	}
	ctx, cancel, err := b.call()
	if err != nil {
		return vault.Task{}, err
	}
	defer cancel()
	me := b.canon(agent)
	for attempt := range boardAttempts {
		if err := boardBackoff(ctx, attempt); err != nil {
			return vault.Task{}, fmt.Errorf("team: claim %s: %w", id, err)
		}
		st, err := b.load(ctx, n)
		if err != nil {
			return vault.Task{}, err
		}
		if st.task.Status == vault.TaskDone {
			return vault.Task{}, fmt.Errorf("%w: %s", vault.ErrTaskDone, st.task.ID)
		}
		if st.claim != nil {
			if owner := st.claim.owner(); owner != me {
				return vault.Task{}, fmt.Errorf("%w: %s is claimed by %s", vault.ErrClaimed, st.task.ID, b.display(owner))
			}
			switch err := b.keep(ctx, st); {
			case errors.Is(err, errBoardConflict):
				continue
			case err != nil:
				return vault.Task{}, fmt.Errorf("team: renew claim on %s: %w", st.task.ID, err)
			}
			return b.view(st), nil
		}
		c, raw, rev, err := b.createClaim(ctx, n, agent, b.member)
		switch {
		case errors.Is(err, errBoardConflict):
			continue
		case err != nil:
			return vault.Task{}, fmt.Errorf("team: claim %s: %w", st.task.ID, err)
		}
		b.hold(n, raw, rev)
		// A user may have finished the task between the read and the claim.
		again, err := b.load(ctx, n)
		if err != nil {
			return vault.Task{}, err
		}
		if again.task.Status == vault.TaskDone {
			_ = b.drop(ctx, n, c)
			return vault.Task{}, fmt.Errorf("%w: %s", vault.ErrTaskDone, st.task.ID)
		}
		again.claim, again.claimRev, again.claimRaw = c, rev, raw
		return b.view(again), nil
	}
	return vault.Task{}, boardBusy(id)
}

// UpdateTask changes the task's detail and status; an empty detail or
// status keeps the old one. Only the owner or the user (agent "") may
// change a claimed task, and only the user an open one. Setting
// vault.TaskOpen releases the task; the user cannot set vault.TaskClaimed
// on an open task. Setting vault.TaskClaimed on a done task claims it
// again for its finisher, a claim that lives only as long as the
// finisher's member renews it.
func (b *Board) UpdateTask(id, agent, detail string, status vault.TaskStatus) (vault.Task, error) {
	switch status {
	case "", vault.TaskOpen, vault.TaskClaimed, vault.TaskDone:
	default:
		return vault.Task{}, fmt.Errorf("%w: unknown status %q (want open, claimed or done)", vault.ErrBadTask, status)
	}
	n, err := boardSeq(id)
	if err != nil {
		return vault.Task{}, err
	}
	ctx, cancel, err := b.call()
	if err != nil {
		return vault.Task{}, err
	}
	defer cancel()
	me := b.canon(agent)
	for attempt := range boardAttempts {
		if err := boardBackoff(ctx, attempt); err != nil {
			return vault.Task{}, fmt.Errorf("team: update %s: %w", id, err)
		}
		st, err := b.load(ctx, n)
		if err != nil {
			return vault.Task{}, err
		}
		owner := st.owner()
		switch {
		case agent != "" && owner != "" && owner != me:
			return vault.Task{}, fmt.Errorf("%w: %s is claimed by %s", vault.ErrClaimed, st.task.ID, b.display(owner))
		case agent != "" && owner == "":
			return vault.Task{}, fmt.Errorf("%w: %s is not claimed by %s", vault.ErrNotOwner, st.task.ID, agent)
		case status == vault.TaskClaimed && owner == "":
			return vault.Task{}, fmt.Errorf("%w: only an agent can claim %s", vault.ErrBadTask, st.task.ID)
		}
		next := st.status()
		if status != "" {
			next = status
		}
		if next == vault.TaskClaimed && st.claim != nil && st.claim.owner() != owner {
			// A stale claim left on a done task: clear it, then start over.
			if err := b.drop(ctx, n, st.claim); err != nil {
				return vault.Task{}, fmt.Errorf("team: update %s: %w", st.task.ID, err)
			}
			continue
		}
		var made *boardClaim
		var madeRaw []byte
		var madeRev uint64
		if next == vault.TaskClaimed && st.claim == nil {
			// A done task claimed again: its finisher holds it.
			a, m := boardSplit(owner)
			made, madeRaw, madeRev, err = b.createClaim(ctx, n, a, m)
			switch {
			case errors.Is(err, errBoardConflict):
				continue
			case err != nil:
				return vault.Task{}, fmt.Errorf("team: claim %s: %w", st.task.ID, err)
			}
			if m == b.member {
				b.hold(n, madeRaw, madeRev)
			}
		}
		t := st.task
		if d := strings.TrimSpace(detail); d != "" {
			t.Detail = d
		}
		t.Status, t.Owner = vault.TaskOpen, ""
		if next == vault.TaskDone {
			t.Status, t.Owner = vault.TaskDone, owner
		}
		t.Updated = time.Now().UTC()
		rev, err := b.putTask(ctx, n, t, st.taskRev)
		if err != nil {
			if made != nil {
				_ = b.drop(ctx, n, made)
			}
			if errors.Is(err, errBoardConflict) {
				continue
			}
			return vault.Task{}, err
		}
		out := &boardState{n: n, task: t, taskRev: rev, claim: st.claim, claimRev: st.claimRev}
		if made != nil {
			out.claim, out.claimRev = made, madeRev
		}
		if next != vault.TaskClaimed && st.claim != nil {
			out.claim = nil
			if err := b.drop(ctx, n, st.claim); err != nil && next == vault.TaskOpen {
				return vault.Task{}, fmt.Errorf("team: release %s: %w", st.task.ID, err)
			}
		}
		return b.view(out), nil
	}
	return vault.Task{}, boardBusy(id)
}

// DoneTask marks the task finished. An agent may finish a task it holds or
// an open one, which becomes its own; a task another agent holds fails
// with vault.ErrClaimed. The user may finish any task.
func (b *Board) DoneTask(id, agent string) (vault.Task, error) {
	n, err := boardSeq(id)
	if err != nil {
		return vault.Task{}, err
	}
	ctx, cancel, err := b.call()
	if err != nil {
		return vault.Task{}, err
	}
	defer cancel()
	me := b.canon(agent)
	for attempt := range boardAttempts {
		if err := boardBackoff(ctx, attempt); err != nil {
			return vault.Task{}, fmt.Errorf("team: finish %s: %w", id, err)
		}
		st, err := b.load(ctx, n)
		if err != nil {
			return vault.Task{}, err
		}
		owner := st.owner()
		if agent != "" && owner != "" && owner != me {
			return vault.Task{}, fmt.Errorf("%w: %s is claimed by %s", vault.ErrClaimed, st.task.ID, b.display(owner))
		}
		if agent != "" {
			owner = me
		}
		var took *boardClaim
		if agent != "" && st.claim == nil && st.task.Status != vault.TaskDone {
			// Claim the open task first, so that no other agent wins a
			// claim on it while it is being finished.
			took, _, _, err = b.createClaim(ctx, n, agent, b.member)
			switch {
			case errors.Is(err, errBoardConflict):
				continue
			case err != nil:
				return vault.Task{}, fmt.Errorf("team: finish %s: %w", st.task.ID, err)
			}
		}
		t := st.task
		t.Status, t.Owner, t.Updated = vault.TaskDone, owner, time.Now().UTC()
		rev, err := b.putTask(ctx, n, t, st.taskRev)
		if err != nil {
			if took != nil {
				_ = b.drop(ctx, n, took)
			}
			if errors.Is(err, errBoardConflict) {
				continue
			}
			return vault.Task{}, err
		}
		// The task reads done whatever its claim; one left behind expires.
		for _, c := range []*boardClaim{st.claim, took} {
			if c != nil {
				_ = b.drop(ctx, n, c)
			}
		}
		return b.view(&boardState{n: n, task: t, taskRev: rev}), nil
	}
	return vault.Task{}, boardBusy(id)
}

// ListTasks returns every task on the board in the order they were added,
// claimed ones with their live claims.
func (b *Board) ListTasks() ([]vault.Task, error) {
	ctx, cancel, err := b.call()
	if err != nil {
		return nil, err
	}
	defer cancel()
	// One watcher replays the latest value of every task and claim key:
	// a single consumer instead of a key listing and a Get for each key.
	w, err := b.kv.WatchFiltered(ctx, []string{boardTaskPrefix + "*", boardClaimPre + "*"}, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("team: list tasks: %w", err)
	}
	defer boardStopWatch(w)
	states := make(map[uint64]*boardState)
	claims := make(map[uint64]*boardClaim)
	claimRevs := make(map[uint64]uint64)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("team: list tasks: %w", ctx.Err())
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				return nil, errors.New("team: list tasks: the watcher stopped")
			case e == nil:
				done = true
			case strings.HasPrefix(e.Key(), boardTaskPrefix):
				n, err := strconv.ParseUint(strings.TrimPrefix(e.Key(), boardTaskPrefix), 10, 64)
				if err != nil {
					continue
				}
				st := &boardState{n: n, taskRev: e.Revision()}
				if err := json.Unmarshal(e.Value(), &st.task); err != nil {
					return nil, fmt.Errorf("team: board entry %s: %w", boardID(n), err)
				}
				states[n] = st
			default:
				n, err := strconv.ParseUint(strings.TrimPrefix(e.Key(), boardClaimPre), 10, 64)
				if err != nil {
					continue
				}
				c := new(boardClaim)
				if err := json.Unmarshal(e.Value(), c); err != nil {
					return nil, fmt.Errorf("team: board claim %s: %w", boardID(n), err)
				}
				claims[n], claimRevs[n] = c, e.Revision()
			}
		}
	}
	b.ownWrites(states, claims, claimRevs)
	keys := make([]uint64, 0, len(states))
	for n, st := range states {
		st.claim = claims[n]
		keys = append(keys, n)
	}
	slices.Sort(keys)
	var out []vault.Task
	for _, n := range keys {
		out = append(out, b.view(states[n]))
	}
	return out, nil
}

// call returns the context for one operation, or ErrBoardClosed.
func (b *Board) call() (context.Context, context.CancelFunc, error) {
	if b.ctx.Err() != nil {
		return nil, nil, ErrBoardClosed
	}
	ctx, cancel := context.WithTimeout(b.ctx, boardCallTimeout)
	return ctx, cancel, nil
}

// canon returns agent on this member as "agent@member", "" for the user.
func (b *Board) canon(agent string) string {
	if agent == "" {
		return ""
	}
	return agent + "@" + b.member
}

// display returns an "agent@member" owner as this member shows it: the
// bare agent name for its own agents.
func (b *Board) display(owner string) string {
	if a, ok := strings.CutSuffix(owner, "@"+b.member); ok {
		return a
	}
	return owner
}

// view returns st as the vault shows a task, owners named for this member.
func (b *Board) view(st *boardState) vault.Task {
	t := st.task
	t.ID = boardID(st.n)
	t.CreatedBy = b.display(t.CreatedBy)
	t.Status = st.status()
	switch t.Status {
	case vault.TaskDone:
		t.Owner = b.display(t.Owner)
	case vault.TaskClaimed:
		t.Owner = b.display(st.claim.owner())
		if st.claim.At.After(t.Updated) {
			t.Updated = st.claim.At
		}
	default:
		t.Owner = ""
	}
	return t
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
