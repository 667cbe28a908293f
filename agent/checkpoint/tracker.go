// Package checkpoint records an agent's workspace before each turn's first
// change and after every tool call that changes it, and rewinds the
// workspace's files to any recorded moment.
//
// A Tracker watches one tree (the agent's workspace or its git worktree)
// for one agent session. Each scan stats every file and reads only those
// whose size, times, inode or mode changed (or that were modified within
// two seconds of the last scan, whose times cannot be trusted yet). What
// is tracked: regular files and directories, except .git, the agents'
// worktrees (.kws/worktrees), what .gitignore or .git/info/exclude
// ignore (but sensitive files such as .env are tracked even when
// ignored), files over Limits.MaxFileSize (8 MiB), binary files (a NUL
// byte in their first 8,000 bytes), symbolic links (never followed),
// devices, sockets and pipes; the walk, in lexical order, stops after
// Limits.MaxEntries (20,000) files and directories.
//
// File bytes go to the vault's blob store, deduplicated by SHA-256, so an
// unchanged file costs nothing. A checkpoint is a vault record (agent,
// session, turn, the message where the turn starts, reason, time) holding
// the change to the session's previous checkpoint's manifest (path to
// kind, permission bits and hash); the first holds the whole manifest.
//
// The wiring: NewTracker when an agent session starts (Load for a session
// whose agent is not running, as kws rewind needs), BeginTurn at each user
// turn's start (at the latest before its first tool call), AfterTool after
// every tool call, Turns and Rewinds to list, Plan or PlanCheckpoint to
// preview a rewind, Apply to carry it out. The conversation is not this
// package's: a Plan names the message index where its turn starts, where
// the caller forks the transcript.
//
// One Tracker is safe for use from several goroutines; trackers of other
// roots run independently on the same vault. Nothing is read or written
// outside the root: reads and writes go through os.Root, and every path
// in a manifest is checked to be a clean relative path. Paths are kept
// exact, whatever bytes they hold; Name makes one safe to show.
package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/kwsdev/kws/vault"
)

// Store is what a tracker needs of the vault; *vault.Vault has it.
type Store interface {
	PutBlobs(data [][]byte) ([]vault.BlobHash, error)
	Blob(h vault.BlobHash) ([]byte, error)
	PutCheckpoint(c vault.Checkpoint, after uint64, blobs [][]byte) (uint64, error)
	CheckpointSeq(session string) (uint64, error)
	Checkpoints(session string) ([]vault.Checkpoint, error)
}

// Reasons a checkpoint was recorded (vault.Checkpoint.Reason).
const (
	// ReasonTurn: the state just before a user turn's first change.
	ReasonTurn = "turn"
	// ReasonTool: the state after a tool call that changed files.
	ReasonTool = "tool"
	// ReasonRewind: the state just before a rewind, to undo it.
	ReasonRewind = "rewind"
	// ReasonRewound: the state a rewind left.
	ReasonRewound = "rewound"
)

// Errors. Callers test them with errors.Is.
var (
	// ErrNoTurn is returned by AfterTool for a turn BeginTurn did not
	// begin, and by Plan for a turn number below 1.
	ErrNoTurn = errors.New("checkpoint: no such turn")
	// ErrNoCheckpoints is returned by Load and Plan for a session without
	// checkpoints, and by PlanCheckpoint for an unknown one.
	ErrNoCheckpoints = errors.New("checkpoint: no checkpoint")
)

// Tracker records and rewinds one agent session's workspace.
type Tracker struct {
	store   Store
	root    string
	agent   string
	session string

	mu   sync.Mutex
	scan scanner
	st   state  // the state of checkpoint seq
	seq  uint64 // the session's newest checkpoint, 0 for none
	turn int    // the turn of the newest checkpoint
}

// NewTracker returns the tracker of agent session session's tree root (a
// directory; symbolic links in its path are resolved once, here). A
// session recorded before continues where it stopped. It scans nothing
// yet: the first BeginTurn reads and stores every tracked file.
func NewTracker(store Store, root, agent, session string) (*Tracker, error) {
	if session == "" {
		return nil, fmt.Errorf("checkpoint: no session")
	}
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: root: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("checkpoint: root %s is not a directory", Name(abs))
	}
	t := &Tracker{store: store, root: abs, agent: agent, session: session}
	if err := t.reload(); err != nil {
		return nil, err
	}
	return t, nil
}

// Load returns the tracker of a session recorded before, on the root and
// agent of its newest checkpoint: for rewinding a session whose agent is
// not running. A session without checkpoints yields ErrNoCheckpoints.
func Load(store Store, session string) (*Tracker, error) {
	recs, err := store.Checkpoints(session)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: session %s has none", ErrNoCheckpoints, Name(session))
	}
	last := recs[len(recs)-1]
	return NewTracker(store, last.Root, last.Agent, session)
}

// Root returns the tree the tracker watches, absolute and resolved.
func (t *Tracker) Root() string { return t.root }

// Session returns the agent session the tracker records.
func (t *Tracker) Session() string { return t.session }

// SetLimits changes the limits of the next scans (a file or directory
// they now leave out counts as deleted at the next checkpoint).
func (t *Tracker) SetLimits(l Limits) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scan.limits = l
}

// Coverage says what the latest scan tracked and left out.
func (t *Tracker) Coverage() Coverage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scan.cover
}

// sync catches up with checkpoints of the session that another writer
// recorded (kws rewind run while the agent works).
func (t *Tracker) sync() error {
	seq, err := t.store.CheckpointSeq(t.session)
	if err != nil || seq == t.seq {
		return err
	}
	return t.reload()
}

// reload reads the session's newest state from the store.
func (t *Tracker) reload() error {
	recs, err := t.store.Checkpoints(t.session)
	if err != nil {
		return err
	}
	t.st, t.seq, t.turn = state{files: manifest{}, foreign: map[string]entry{}}, 0, 0
	for _, c := range recs {
		d, err := decodeDelta(c.Manifest)
		if err != nil {
			return fmt.Errorf("checkpoint %d: %w", c.Seq, err)
		}
		t.st.note(c.Reason, d)
		t.st.files.apply(d)
		t.seq, t.turn = c.Seq, c.Turn
	}
	return nil
}

// BeginTurn records the workspace as it stands before user turn turn
// (counted from 1) changes anything; msgIndex is the index in the
// agent's transcript of the turn's first message, where a rewind of the
// conversation forks it. Call it once per turn: when the turn starts, or
// at the latest before its first tool call. A turn number not above the
// last one means the conversation was rewound: that turn starts again
// here, and the turns after it leave the list Turns gives (their
// checkpoints stay in the vault).
func (t *Tracker) BeginTurn(turn, msgIndex int) error {
	if turn < 1 {
		return fmt.Errorf("%w: turn %d (turns count from 1)", ErrNoTurn, turn)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.sync(); err != nil {
		return err
	}
	cur, pending, err := t.scanNow()
	if err != nil {
		return err
	}
	_, _, err = t.record(vault.Checkpoint{Turn: turn, MsgIndex: msgIndex, Reason: ReasonTurn}, cur, pending)
	return err
}

// AfterTool scans the workspace after tool call callID (of tool tool) in
// turn turn and, when files changed since the last checkpoint, records a
// checkpoint and returns the changed files, in path order, with their
// line counts (directories are tracked but not listed). Changes by
// anyone else since the last checkpoint (you in an editor, another agent
// in the same tree) are counted as the call's: only a worktree of the
// agent's own tells them apart. It fails with ErrNoTurn unless BeginTurn
// began turn.
func (t *Tracker) AfterTool(turn int, callID, tool string) ([]Change, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.sync(); err != nil {
		return nil, err
	}
	if turn != t.turn || t.seq == 0 {
		return nil, fmt.Errorf("%w: turn %d has not begun (call BeginTurn first)", ErrNoTurn, turn)
	}
	cur, pending, err := t.scanNow()
	if err != nil {
		return nil, err
	}
	if len(diff(t.st.files, cur)) == 0 {
		return nil, t.storeBlobs(pending)
	}
	old, _, err := t.record(vault.Checkpoint{Turn: turn, MsgIndex: -1, Reason: ReasonTool, Tool: tool, CallID: callID}, cur, pending)
	if err != nil {
		return nil, err
	}
	return changes(t.store, old, cur)
}

// scanNow scans the root with the tracker's limits.
func (t *Tracker) scanNow() (manifest, [][]byte, error) {
	t.scan.limits = t.scan.limits.withDefaults()
	cur, pending, err := t.scan.scan(t.root, t.storeBlobs)
	if err != nil {
		t.scan.forget()
	}
	return cur, pending, err
}

// storeBlobs stores bytes a scan read; on failure the scanner forgets
// what it read, so that no later manifest names bytes the store lacks.
func (t *Tracker) storeBlobs(data [][]byte) error {
	if len(data) == 0 {
		return nil
	}
	if _, err := t.store.PutBlobs(data); err != nil {
		t.scan.forget()
		return fmt.Errorf("checkpoint: store file bytes: %w", err)
	}
	return nil
}

// record stores cur as the session's next checkpoint c, with the bytes
// pending, and returns the state before it and its sequence number. When
// another writer recorded a checkpoint of the session in between (kws
// rewind run while the agent works), it builds on that one instead.
func (t *Tracker) record(c vault.Checkpoint, cur manifest, pending [][]byte) (manifest, uint64, error) {
	c.Agent, c.Session, c.Root = t.agent, t.session, t.root
	for attempt := 0; ; attempt++ {
		d := diff(t.st.files, cur)
		c.Manifest = d.encode()
		seq, err := t.store.PutCheckpoint(c, t.seq, pending)
		if errors.Is(err, vault.ErrCheckpointOrder) && attempt == 0 {
			if err := t.reload(); err != nil {
				return nil, 0, err
			}
			continue
		}
		if err != nil {
			t.scan.forget()
			return nil, 0, fmt.Errorf("checkpoint: record: %w", err)
		}
		old := t.st.files
		t.st.note(c.Reason, d)
		t.st.files, t.seq, t.turn = cur, seq, c.Turn
		return old, seq, nil
	}
}
