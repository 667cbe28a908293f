package vault

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketBoard holds the swarm's task board, keyed by the task's sequence
// number (8 bytes, big-endian). It is created by the first write, so that
// vaults made before the board existed still open read-only.
var bucketBoard = []byte("board")

// TaskStatus is where a board task stands.
type TaskStatus string

// Task states.
const (
	// TaskOpen: nobody holds the task.
	TaskOpen TaskStatus = "open"
	// TaskClaimed: the task's Owner works on it.
	TaskClaimed TaskStatus = "claimed"
	// TaskDone: the task is finished.
	TaskDone TaskStatus = "done"
)

// Task is one entry of the swarm's shared task board.
type Task struct {
	// ID is "t" followed by the task's sequence number: t1, t2, …
	ID     string     `json:"id"`
	Title  string     `json:"title"`
	Detail string     `json:"detail,omitempty"`
	Status TaskStatus `json:"status"`
	// Owner is the agent that claimed the task; empty while it is open.
	Owner string `json:"owner,omitempty"`
	// CreatedBy is the agent that added the task; empty for the user.
	CreatedBy string    `json:"created_by,omitempty"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
}

// Board errors. Callers test them with errors.Is; the wrapping error names
// the task and, for ErrClaimed, the agent that holds it.
var (
	// ErrNoTask is returned for an id that names no task on the board.
	ErrNoTask = errors.New("vault: no task with that id")
	// ErrClaimed is returned when another agent holds the task.
	ErrClaimed = errors.New("vault: task is claimed by another agent")
	// ErrNotOwner is returned when an agent changes an open task it has
	// not claimed.
	ErrNotOwner = errors.New("vault: claim the task before changing it")
	// ErrTaskDone is returned when an agent claims a finished task.
	ErrTaskDone = errors.New("vault: task is already done")
	// ErrBadTask is returned for an empty title, an unknown status, or a
	// claim without an agent name (the user cannot claim).
	ErrBadTask = errors.New("vault: invalid task change")
)

// AddTask puts a new open task on the board and returns it; createdBy is
// the agent adding it, empty for the user.
func (v *Vault) AddTask(title, detail, createdBy string) (Task, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return Task{}, fmt.Errorf("%w: the title is empty", ErrBadTask)
	}
	var t Task
	err := v.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketBoard)
		if err != nil {
			return fmt.Errorf("vault: board bucket: %w", err)
		}
		seq, err := b.NextSequence()
		if err != nil {
			return fmt.Errorf("vault: board sequence: %w", err)
		}
		now := time.Now().UTC()
		t = Task{ID: "t" + strconv.FormatUint(seq, 10), Title: title, Detail: strings.TrimSpace(detail),
			Status: TaskOpen, CreatedBy: createdBy, Created: now, Updated: now}
		return putTask(b, seq, t)
	})
	return t, err
}

// ClaimTask makes agent the owner of the task id. Claiming a task the
// agent already holds changes nothing; a task another agent holds fails
// with ErrClaimed naming the owner, a finished one with ErrTaskDone.
func (v *Vault) ClaimTask(id, agent string) (Task, error) {
	if agent == "" {
		return Task{}, fmt.Errorf("%w: only an agent can claim %s", ErrBadTask, id)
	}
	return v.changeTask(id, func(t *Task) error {
		switch {
		case t.Status == TaskDone:
			return fmt.Errorf("%w: %s", ErrTaskDone, t.ID)
		case t.Owner != "" && t.Owner != agent:
			return fmt.Errorf("%w: %s is claimed by %s", ErrClaimed, t.ID, t.Owner)
		}
		t.Status, t.Owner = TaskClaimed, agent
		return nil
	})
}

// UpdateTask changes the task's detail and status; an empty detail or
// status keeps the old one. Only the owner or the user (agent "") may
// change a claimed task, and only the user an open one. Setting TaskOpen
// releases the task; the user cannot set TaskClaimed on an open task.
func (v *Vault) UpdateTask(id, agent, detail string, status TaskStatus) (Task, error) {
	switch status {
	case "", TaskOpen, TaskClaimed, TaskDone:
	default:
		return Task{}, fmt.Errorf("%w: unknown status %q (want open, claimed or done)", ErrBadTask, status)
	}
	return v.changeTask(id, func(t *Task) error {
		switch {
		case agent != "" && t.Owner != "" && t.Owner != agent:
			return fmt.Errorf("%w: %s is claimed by %s", ErrClaimed, t.ID, t.Owner)
		case agent != "" && t.Owner == "":
			return fmt.Errorf("%w: %s is not claimed by %s", ErrNotOwner, t.ID, agent)
		case status == TaskClaimed && t.Owner == "":
			return fmt.Errorf("%w: only an agent can claim %s", ErrBadTask, t.ID)
		}
		if d := strings.TrimSpace(detail); d != "" {
			t.Detail = d
		}
		if status != "" {
			t.Status = status
		}
		if t.Status == TaskOpen {
			t.Owner = ""
		}
		return nil
	})
}

// DoneTask marks the task finished. An agent may finish a task it holds or
// an open one, which becomes its own in the same transaction; a task
// another agent holds fails with ErrClaimed. The user may finish any task.
func (v *Vault) DoneTask(id, agent string) (Task, error) {
	return v.changeTask(id, func(t *Task) error {
		if agent != "" && t.Owner != "" && t.Owner != agent {
			return fmt.Errorf("%w: %s is claimed by %s", ErrClaimed, t.ID, t.Owner)
		}
		if agent != "" {
			t.Owner = agent
		}
		t.Status = TaskDone
		return nil
	})
}

// ListTasks returns every task on the board in the order they were added.
func (v *Vault) ListTasks() ([]Task, error) {
	var out []Task
	err := v.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBoard)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, raw []byte) error {
			var t Task
			if err := json.Unmarshal(raw, &t); err != nil {
				return fmt.Errorf("%w: board entry: %v", ErrCorrupt, err)
			}
			out = append(out, t)
			return nil
		})
	})
	return out, err
}

// changeTask loads the task id, lets fn change it and stores it, all in
// one write transaction, so that two agents never both win a claim.
func (v *Vault) changeTask(id string, fn func(t *Task) error) (Task, error) {
	seq, err := taskSeq(id)
	if err != nil {
		return Task{}, err
	}
	var t Task
	err = v.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBoard)
		if b == nil {
			return fmt.Errorf("%w: %s", ErrNoTask, id)
		}
		raw := b.Get(binary.BigEndian.AppendUint64(nil, seq))
		if raw == nil {
			return fmt.Errorf("%w: %s", ErrNoTask, id)
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("%w: board entry %s: %v", ErrCorrupt, id, err)
		}
		if err := fn(&t); err != nil {
			return err
		}
		t.Updated = time.Now().UTC()
		return putTask(b, seq, t)
	})
	if err != nil {
		return Task{}, err
	}
	return t, nil
}

// putTask stores t under its sequence number.
func putTask(b *bolt.Bucket, seq uint64, t Task) error {
	raw, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("vault: encode task: %w", err)
	}
	if err := b.Put(binary.BigEndian.AppendUint64(nil, seq), raw); err != nil {
		return fmt.Errorf("vault: put task: %w", err)
	}
	return nil
}

// taskSeq parses a task id ("t3", "T3" or "3") into its sequence number.
func taskSeq(id string) (uint64, error) {
	s := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(id)), "t")
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%w: %q (want t1, t2, …)", ErrNoTask, id)
	}
	return n, nil
}
