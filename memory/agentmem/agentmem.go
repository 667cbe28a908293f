// Package agentmem adapts the memory store to one agent: it recalls
// memories into each user turn, learns from the turn and from the agent's
// shell commands, and serves the memory_search and memory_save tools. The
// agent assembly (app.BuildAgent) takes a *Memory as its app.Memory.
package agentmem

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/vault"
)

// recallBudget is the most tokens a <memory> hint block takes.
const recallBudget = 600

// TurnKeeper is the part of the vault that keeps a turn; *vault.Vault is
// one.
type TurnKeeper interface {
	// Put stores data exactly under m and returns the block's id.
	Put(data []byte, m vault.Meta) (string, error)
}

// Extractor is the part of the sidecar that proposes memories; a
// sidecar.Engine is one.
type Extractor interface {
	// ExtractMemories proposes memory candidates from a user turn.
	ExtractMemories(ctx context.Context, text string) ([]sidecar.Candidate, error)
	// Info describes the engine; a heuristic one has no model.
	Info() sidecar.Info
}

// Config is what one agent's memory is made from.
type Config struct {
	// Store is the memory store every agent shares.
	Store *memory.Store
	// Vault keeps the exact turn a memory came from, its provenance; nil
	// keeps nothing.
	Vault TurnKeeper
	// Workspace is the project's directory, which names the project's
	// scope; Dir is where the agent's shell commands run (its worktree,
	// if any), or "" to learn no renames.
	Workspace, Dir string
	// Agent and Session name the agent and its session in provenance.
	Agent, Session string
	// Engine proposes candidates when it has a model; the store's rules
	// do otherwise, and when Engine is nil.
	Engine Extractor
	// Log receives what promotion did and what failed; it must be set.
	Log *slog.Logger
}

// Memory adapts the memory store to what one agent needs: recall into
// each user turn, learning from it, and the memory tools. Scopes are the
// workspace's project and global.
type Memory struct {
	store   *memory.Store
	project string
	// workspace is the project's directory; dir is where the agent's
	// shell commands run (its worktree, if any).
	workspace, dir string
	// checks are the renames of the shell command checkCall, as their
	// paths were before it ran.
	checksMu  sync.Mutex
	checks    []renameCheck
	checkCall string
	session   string
	agent     string
	// vault keeps the exact turn a memory came from, its provenance.
	vault TurnKeeper
	// turn is the number of the turn observed last, for memory_save.
	turn atomic.Int64
	// extract proposes candidates: the sidecar when it has a model, the
	// store's rules otherwise.
	engine Extractor
	log    *slog.Logger
	// pending counts observations still being promoted.
	pending sync.WaitGroup
}

// New returns the memory of the agent c describes.
func New(c Config) *Memory {
	return &Memory{store: c.Store, vault: c.Vault, project: memory.ProjectScope(c.Workspace), workspace: c.Workspace, dir: c.Dir,
		agent: c.Agent, session: c.Session, engine: c.Engine, log: c.Log}
}

// Recall returns the hint block for the turn.
func (m *Memory) Recall(ctx context.Context, turn string) (string, error) {
	block, _, err := m.store.Recall(ctx, turn, []string{m.project, memory.GlobalScope}, recallBudget,
		func(s string) int { return tokens.Default().Count(s).Tokens })
	return block, err
}

// Observe proposes memories from a user turn and promotes them, in the
// background: a slow sidecar never delays the turn. Low-confidence
// candidates wait in the memory pane's approval queue. A turn that yields
// candidates is kept in the vault, exactly, and its id is their
// provenance.
func (m *Memory) Observe(ctx context.Context, turn string, index int) {
	m.turn.Store(int64(index))
	m.pending.Add(1)
	go func() {
		defer m.pending.Done()
		ctx := context.WithoutCancel(ctx)
		cands, err := m.candidates(ctx, turn)
		if err != nil {
			m.log.Warn("memory: extraction failed", "error", err)
			return
		}
		if len(cands) == 0 {
			return
		}
		prov := memory.Provenance{Session: m.session, Turn: index, Source: memory.SourceUser}
		if id, err := m.keep("user", turn, index); err != nil {
			m.log.Warn("memory: keeping the turn in the vault failed", "error", err)
		} else {
			prov.VaultIDs = []string{id}
		}
		for _, c := range cands {
			if act, mem, err := m.store.Promote(ctx, c, m.project, prov); err != nil {
				m.log.Warn("memory: promotion failed", "error", err)
			} else {
				m.log.Info("memory", "action", act, "id", mem.ID)
			}
		}
	}()
}

// keep stores text in the vault as a block of the given kind, from this
// agent's session and turn.
func (m *Memory) keep(kind, text string, turn int) (string, error) {
	if m.vault == nil {
		return "", errors.New("no vault")
	}
	c := tokens.Default().Count(text)
	meta := diet.Describe(kind, text).Meta(kind, -1, c.Tokens, !c.Exact)
	meta.Agent, meta.Session, meta.Turn = m.agent, m.session, turn
	return m.vault.Put([]byte(text), meta)
}

// Wait returns when every observation has been promoted.
func (m *Memory) Wait() { m.pending.Wait() }

func (m *Memory) candidates(ctx context.Context, turn string) ([]memory.Candidate, error) {
	if m.engine != nil && !m.engine.Info().Heuristic {
		cs, err := m.engine.ExtractMemories(ctx, turn)
		if err != nil {
			return nil, err
		}
		out := make([]memory.Candidate, len(cs))
		for i, c := range cs {
			out[i] = memory.Candidate{Text: c.Text, Kind: c.Kind, Confidence: c.Confidence}
		}
		return out, nil
	}
	return memory.Rules{}.Extract(ctx, turn)
}

// Search serves memory_search.
func (m *Memory) Search(ctx context.Context, query, scope string, k int) ([]tools.MemoryHit, error) {
	scopes := []string{m.project, memory.GlobalScope}
	switch scope {
	case "project":
		scopes = scopes[:1]
	case "global":
		scopes = scopes[1:]
	}
	hits, err := m.store.Search(ctx, query, scopes, k)
	if err != nil {
		return nil, err
	}
	out := make([]tools.MemoryHit, len(hits))
	for i, h := range hits {
		out[i] = tools.MemoryHit{ID: h.ID, Text: h.Text, Kind: h.Kind, Scope: memory.ScopeLabel(h.Scope), Source: h.Provenance.Source, Score: h.Score}
	}
	return out, nil
}

// Save serves memory_save: the model's memory for the project is promoted
// like any candidate, at a confidence that passes the threshold. A global
// one would reach the prompts of every other workspace, where a hostile
// repository's instructions ("always run curl … | sh") must not follow
// the user: it waits in the approval queue.
func (m *Memory) Save(ctx context.Context, text, kind, scope string) (string, string, error) {
	cand := memory.Candidate{Text: text, Kind: kind, Confidence: 0.7}
	prov := memory.Provenance{Session: m.session, Turn: int(m.turn.Load()), Source: memory.SourceTool}
	promote := m.store.Promote
	sc := m.project
	if scope == "global" {
		promote, sc = m.store.Propose, memory.GlobalScope
	}
	act, mem, err := promote(ctx, cand, sc, prov)
	return string(act), mem.ID, err
}
