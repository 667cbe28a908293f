package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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

// onTask runs op on the current state of task id, read afresh each time,
// until op no longer asks to run again (again set: a write lost a race);
// after boardAttempts tries the task is reported busy. verb names the
// operation in errors.
func (b *Board) onTask(id, verb string, op func(ctx context.Context, n uint64, st *boardState) (t vault.Task, again bool, err error)) (vault.Task, error) {
	n, err := boardSeq(id)
	if err != nil {
		return vault.Task{}, err
	}
	ctx, cancel, err := b.call()
	if err != nil {
		return vault.Task{}, err
	}
	defer cancel()
	for attempt := range boardAttempts {
		if err := boardBackoff(ctx, attempt); err != nil {
			return vault.Task{}, fmt.Errorf("team: %s %s: %w", verb, id, err)
		}
		st, err := b.load(ctx, n)
		if err != nil {
			return vault.Task{}, err
		}
		t, again, err := op(ctx, n, st)
		if !again {
			return t, err
		}
	}
	return vault.Task{}, boardBusy(id)
}

// ClaimTask makes agent the owner of the task id. Claiming a task the
// agent already holds renews the claim; a task another agent holds fails
// with vault.ErrClaimed naming the owner, a finished one with
// vault.ErrTaskDone.
func (b *Board) ClaimTask(id, agent string) (vault.Task, error) {
	if agent == "" {
		return vault.Task{}, fmt.Errorf("%w: only an agent can claim %s", vault.ErrBadTask, id)
	}
	me := b.canon(agent)
	return b.onTask(id, "claim", func(ctx context.Context, n uint64, st *boardState) (vault.Task, bool, error) {
		if st.task.Status == vault.TaskDone {
			return vault.Task{}, false, fmt.Errorf("%w: %s", vault.ErrTaskDone, st.task.ID)
		}
		if st.claim != nil {
			if owner := st.claim.owner(); owner != me {
				return vault.Task{}, false, fmt.Errorf("%w: %s is claimed by %s", vault.ErrClaimed, st.task.ID, b.display(owner))
			}
			switch err := b.keep(ctx, st); {
			case errors.Is(err, errBoardConflict):
				return vault.Task{}, true, nil
			case err != nil:
				return vault.Task{}, false, fmt.Errorf("team: renew claim on %s: %w", st.task.ID, err)
			}
			return b.view(st), false, nil
		}
		c, raw, rev, err := b.createClaim(ctx, n, agent, b.member)
		switch {
		case errors.Is(err, errBoardConflict):
			return vault.Task{}, true, nil
		case err != nil:
			return vault.Task{}, false, fmt.Errorf("team: claim %s: %w", st.task.ID, err)
		}
		b.hold(n, raw, rev)
		// A user may have finished the task between the read and the claim.
		again, err := b.load(ctx, n)
		if err != nil {
			return vault.Task{}, false, err
		}
		if again.task.Status == vault.TaskDone {
			_ = b.drop(ctx, n, c)
			return vault.Task{}, false, fmt.Errorf("%w: %s", vault.ErrTaskDone, st.task.ID)
		}
		again.claim, again.claimRev, again.claimRaw = c, rev, raw
		return b.view(again), false, nil
	})
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
	me := b.canon(agent)
	return b.onTask(id, "update", func(ctx context.Context, n uint64, st *boardState) (vault.Task, bool, error) {
		owner := st.owner()
		switch {
		case agent != "" && owner != "" && owner != me:
			return vault.Task{}, false, fmt.Errorf("%w: %s is claimed by %s", vault.ErrClaimed, st.task.ID, b.display(owner))
		case agent != "" && owner == "":
			return vault.Task{}, false, fmt.Errorf("%w: %s is not claimed by %s", vault.ErrNotOwner, st.task.ID, agent)
		case status == vault.TaskClaimed && owner == "":
			return vault.Task{}, false, fmt.Errorf("%w: only an agent can claim %s", vault.ErrBadTask, st.task.ID)
		}
		next := st.status()
		if status != "" {
			next = status
		}
		if next == vault.TaskClaimed && st.claim != nil && st.claim.owner() != owner {
			// A stale claim left on a done task: clear it, then start over.
			if err := b.drop(ctx, n, st.claim); err != nil {
				return vault.Task{}, false, fmt.Errorf("team: update %s: %w", st.task.ID, err)
			}
			return vault.Task{}, true, nil
		}
		var made *boardClaim
		var madeRaw []byte
		var madeRev uint64
		if next == vault.TaskClaimed && st.claim == nil {
			// A done task claimed again: its finisher holds it.
			a, m := boardSplit(owner)
			var err error
			made, madeRaw, madeRev, err = b.createClaim(ctx, n, a, m)
			switch {
			case errors.Is(err, errBoardConflict):
				return vault.Task{}, true, nil
			case err != nil:
				return vault.Task{}, false, fmt.Errorf("team: claim %s: %w", st.task.ID, err)
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
			return vault.Task{}, errors.Is(err, errBoardConflict), err
		}
		out := &boardState{n: n, task: t, taskRev: rev, claim: st.claim, claimRev: st.claimRev}
		if made != nil {
			out.claim, out.claimRev = made, madeRev
		}
		if next != vault.TaskClaimed && st.claim != nil {
			out.claim = nil
			if err := b.drop(ctx, n, st.claim); err != nil && next == vault.TaskOpen {
				return vault.Task{}, false, fmt.Errorf("team: release %s: %w", st.task.ID, err)
			}
		}
		return b.view(out), false, nil
	})
}

// DoneTask marks the task finished. An agent may finish a task it holds or
// an open one, which becomes its own; a task another agent holds fails
// with vault.ErrClaimed. The user may finish any task.
func (b *Board) DoneTask(id, agent string) (vault.Task, error) {
	me := b.canon(agent)
	return b.onTask(id, "finish", func(ctx context.Context, n uint64, st *boardState) (vault.Task, bool, error) {
		owner := st.owner()
		if agent != "" && owner != "" && owner != me {
			return vault.Task{}, false, fmt.Errorf("%w: %s is claimed by %s", vault.ErrClaimed, st.task.ID, b.display(owner))
		}
		if agent != "" {
			owner = me
		}
		var took *boardClaim
		if agent != "" && st.claim == nil && st.task.Status != vault.TaskDone {
			// Claim the open task first, so that no other agent wins a
			// claim on it while it is being finished.
			var err error
			took, _, _, err = b.createClaim(ctx, n, agent, b.member)
			switch {
			case errors.Is(err, errBoardConflict):
				return vault.Task{}, true, nil
			case err != nil:
				return vault.Task{}, false, fmt.Errorf("team: finish %s: %w", st.task.ID, err)
			}
		}
		t := st.task
		t.Status, t.Owner, t.Updated = vault.TaskDone, owner, time.Now().UTC()
		rev, err := b.putTask(ctx, n, t, st.taskRev)
		if err != nil {
			if took != nil {
				_ = b.drop(ctx, n, took)
			}
			return vault.Task{}, errors.Is(err, errBoardConflict), err
		}
		// The task reads done whatever its claim; one left behind expires.
		for _, c := range []*boardClaim{st.claim, took} {
			if c != nil {
				_ = b.drop(ctx, n, c)
			}
		}
		return b.view(&boardState{n: n, task: t, taskRev: rev}), false, nil
	})
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
