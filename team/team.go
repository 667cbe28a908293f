package team

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kwsdev/kws/vault"
)

// ErrNotReady is returned by the team's board while no majority of the
// members answers: this member goes on with its own vault and agents.
var ErrNotReady = errors.New("team: waiting for a majority of the team's members")

// Options are what a member's team needs of the kws server.
type Options struct {
	// Vault is the member's vault, shared with the team.
	Vault *vault.Vault
	// Deliver hands a message from another member to a local agent.
	Deliver Deliver
	// Memory is the member's memory, whose project memories are shared;
	// nil shares none (memory is off).
	Memory MemoryStore
	Log    *slog.Logger
}

// Team is a member's part in its team: its node and, once a majority of
// the members answers, the shared board, blocks and agents.
type Team struct {
	cfg  Config
	node *Node
	opts Options

	ready   chan struct{}
	changed chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}

	mu     sync.Mutex
	board  *Board
	blocks *Blocks
	agents *Agents
	memory *MemorySync
	closed bool
}

// Open starts the data dir's team membership: ErrNoTeam when it is in no
// team. It returns once the node runs; the shared stores open in the
// background when the team answers (Ready).
func Open(dataDir string, o Options) (*Team, error) {
	cfg, err := Load(dataDir)
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	node, err := StartNode(dataDir, cfg, o.Log)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &Team{cfg: cfg, node: node, opts: o, ready: make(chan struct{}), changed: make(chan struct{}, 1),
		cancel: cancel, done: make(chan struct{})}
	go t.connect(ctx)
	return t, nil
}

// connect waits for the team, opens the shared stores and forwards their
// changes.
func (t *Team) connect(ctx context.Context) {
	defer close(t.done)
	for ctx.Err() == nil {
		if err := t.node.Ready(ctx); err != nil {
			continue
		}
		if err := t.open(ctx); err != nil {
			t.opts.Log.Warn("team: open the shared stores; trying again", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		break
	}
	if ctx.Err() != nil {
		return
	}
	close(t.ready)
	t.notify()
	grow := time.NewTicker(30 * time.Second)
	defer grow.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-t.board.Changed():
			if !ok {
				return
			}
			t.notify()
		case <-grow.C:
			t.grow(ctx)
		}
	}
}

// open opens the board, the blocks and the agents.
func (t *Team) open(ctx context.Context) error {
	js, replicas := t.node.JetStream(), t.node.Replicas()
	octx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	board, err := OpenBoard(octx, js, BoardConfig{Replicas: replicas, Lease: time.Duration(t.cfg.LeaseSeconds) * time.Second, Member: t.cfg.Member})
	if err != nil {
		return err
	}
	blocks, err := OpenBlocks(octx, js, t.opts.Vault, BlocksConfig{Replicas: replicas, Since: t.cfg.Joined}, t.opts.Log)
	if err != nil {
		_ = board.Close()
		return err
	}
	deliver := t.opts.Deliver
	if deliver == nil {
		deliver = func(_, to, _ string) error { return fmt.Errorf("no agent %s here", to) }
	}
	agents, err := OpenAgents(octx, js, t.node.Conn(), t.cfg.Name(), t.cfg.Member, replicas, deliver)
	if err != nil {
		_ = board.Close()
		_ = blocks.Close()
		return err
	}
	var mem *MemorySync
	if t.opts.Memory != nil {
		mem, err = OpenMemory(octx, js, t.opts.Memory, MemoryConfig{Replicas: replicas, Member: t.cfg.Member, Log: t.opts.Log})
		if err != nil {
			_ = board.Close()
			_ = blocks.Close()
			_ = agents.Close()
			return err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		_ = board.Close()
		_ = blocks.Close()
		_ = agents.Close()
		if mem != nil {
			_ = mem.Close()
		}
		return context.Canceled
	}
	t.board, t.blocks, t.agents, t.memory = board, blocks, agents, mem
	return nil
}

// grow raises the replicas of the team's streams when members joined
// since they were made, up to 3.
func (t *Team) grow(ctx context.Context) {
	want := t.node.Replicas()
	js := t.node.JetStream()
	for _, name := range []string{"KV_KWS_BOARD", "OBJ_KWS_VAULT", "KV_KWS_AGENTS", "KWS_MEMORY"} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			continue
		}
		cfg := s.CachedInfo().Config
		if cfg.Replicas >= want {
			continue
		}
		cfg.Replicas = want
		if _, err := js.UpdateStream(ctx, cfg); err != nil {
			t.opts.Log.Warn("team: raise a stream's replicas", "stream", name, "replicas", want, "error", err)
		}
	}
}

func (t *Team) notify() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// Ready is closed once the shared stores are open.
func (t *Team) Ready() <-chan struct{} { return t.ready }

// Changed signals a change of the board by any member (coalesced).
func (t *Team) Changed() <-chan struct{} { return t.changed }

// Config is the member's team configuration.
func (t *Team) Config() Config { return t.cfg }

// Node is the member's node.
func (t *Team) Node() *Node { return t.node }

// stores are the shared stores, or ErrNotReady at once: nothing waits
// for the team (the board pane asks on the UI goroutine).
func (t *Team) stores() (*Board, *Agents, error) {
	select {
	case <-t.ready:
	default:
		return nil, nil, ErrNotReady
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, nil, ErrNotReady
	}
	return t.board, t.agents, nil
}

// Share publishes a sensitive block to the team, which the user chose to
// share (kws team share).
func (t *Team) Share(ctx context.Context, id string) error {
	if _, _, err := t.stores(); err != nil {
		return err
	}
	t.mu.Lock()
	blocks := t.blocks
	t.mu.Unlock()
	return blocks.Share(ctx, id, t.cfg.Member)
}

// Agents are the shared list of agents, once the team answers.
func (t *Team) Agents() (*Agents, error) {
	_, a, err := t.stores()
	return a, err
}

// AddTask adds a task to the team's board (swarm.BoardStore).
func (t *Team) AddTask(title, detail, createdBy string) (vault.Task, error) {
	b, _, err := t.stores()
	if err != nil {
		return vault.Task{}, err
	}
	return b.AddTask(title, detail, createdBy)
}

// ClaimTask claims a task of the team's board for agent.
func (t *Team) ClaimTask(id, agent string) (vault.Task, error) {
	b, _, err := t.stores()
	if err != nil {
		return vault.Task{}, err
	}
	return b.ClaimTask(id, agent)
}

// UpdateTask changes a task of the team's board.
func (t *Team) UpdateTask(id, agent, detail string, status vault.TaskStatus) (vault.Task, error) {
	b, _, err := t.stores()
	if err != nil {
		return vault.Task{}, err
	}
	return b.UpdateTask(id, agent, detail, status)
}

// DoneTask finishes a task of the team's board.
func (t *Team) DoneTask(id, agent string) (vault.Task, error) {
	b, _, err := t.stores()
	if err != nil {
		return vault.Task{}, err
	}
	return b.DoneTask(id, agent)
}

// ListTasks lists the team's board.
func (t *Team) ListTasks() ([]vault.Task, error) {
	b, _, err := t.stores()
	if err != nil {
		return nil, err
	}
	return b.ListTasks()
}

// Status is a member's view of its team.
type Status struct {
	Team    string   `json:"team"`
	Member  string   `json:"member"`
	Listen  string   `json:"listen"`
	Ready   bool     `json:"ready"`
	Members []Member `json:"members"`
	// Streams are the team's streams with their replicas and leader.
	Streams []StreamState `json:"streams,omitempty"`
	// Agents are every member's agents.
	Agents []AgentState `json:"agents,omitempty"`
}

// StreamState is one of the team's streams as the cluster keeps it.
type StreamState struct {
	Name     string `json:"name"`
	Replicas int    `json:"replicas"`
	Leader   string `json:"leader,omitempty"`
	// Current counts the replicas caught up, the leader included.
	Current  int    `json:"current"`
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
}

// Status reports the team as this member sees it.
func (t *Team) Status(ctx context.Context) Status {
	st := Status{Team: t.cfg.Name(), Member: t.cfg.Member, Listen: t.node.Addr(), Members: t.node.Members()}
	select {
	case <-t.ready:
		st.Ready = true
	default:
		return st
	}
	js := t.node.JetStream()
	for _, name := range []string{"KV_KWS_BOARD", "OBJ_KWS_VAULT", "KV_KWS_AGENTS", "KWS_MEMORY"} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			continue
		}
		info := s.CachedInfo()
		ss := StreamState{Name: name, Replicas: info.Config.Replicas, Messages: info.State.Msgs, Bytes: info.State.Bytes}
		if c := info.Cluster; c != nil {
			ss.Leader = c.Leader
			if c.Leader != "" {
				ss.Current++
			}
			for _, r := range c.Replicas {
				if r.Current {
					ss.Current++
				}
			}
		}
		st.Streams = append(st.Streams, ss)
	}
	if _, a, err := t.stores(); err == nil {
		st.Agents, _ = a.List(ctx)
	}
	return st
}

// Close leaves the team's cluster for now: the shared stores close and
// the node stops; the membership stays (kws team leave ends it).
func (t *Team) Close() {
	t.mu.Lock()
	t.closed = true
	board, blocks, agents, mem := t.board, t.blocks, t.agents, t.memory
	t.mu.Unlock()
	t.cancel()
	if mem != nil {
		_ = mem.Close()
	}
	if board != nil {
		_ = board.Close()
	}
	if blocks != nil {
		_ = blocks.Close()
	}
	if agents != nil {
		_ = agents.Close()
	}
	<-t.done
	t.node.Close()
}
