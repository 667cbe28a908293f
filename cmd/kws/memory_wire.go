package main

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

// agentMemory adapts the memory store to what one agent needs: recall into
// each user turn, learning from it, and the memory tools. Scopes are the
// workspace's project and global.
type agentMemory struct {
	store   *memory.Store
	project string
	session string
	agent   string
	// vault keeps the exact turn a memory came from, its provenance.
	vault turnKeeper
	// turn is the number of the turn observed last, for memory_save.
	turn atomic.Int64
	// extract proposes candidates: the sidecar when it has a model, the
	// store's rules otherwise.
	engine sidecar.Engine
	log    *slog.Logger
	// pending counts observations still being promoted.
	pending sync.WaitGroup
}

// turnKeeper is the part of the vault that keeps a turn; *vault.Vault is
// one.
type turnKeeper interface {
	Put(data []byte, m vault.Meta) (string, error)
}

func newAgentMemory(store *memory.Store, v turnKeeper, workspace, agentName, session string, engine sidecar.Engine, log *slog.Logger) *agentMemory {
	return &agentMemory{store: store, vault: v, project: memory.ProjectScope(workspace), agent: agentName,
		session: session, engine: engine, log: log}
}

// Recall returns the hint block for the turn.
func (m *agentMemory) Recall(ctx context.Context, turn string) (string, error) {
	block, _, err := m.store.Recall(ctx, turn, []string{m.project, memory.GlobalScope}, recallBudget,
		func(s string) int { return tokens.Default().Count(s).Tokens })
	return block, err
}

// Observe proposes memories from a user turn and promotes them, in the
// background: a slow sidecar never delays the turn. Low-confidence
// candidates wait in the memory pane's approval queue. A turn that yields
// candidates is kept in the vault, exactly, and its id is their
// provenance.
func (m *agentMemory) Observe(ctx context.Context, turn string, index int) {
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
		if id, err := m.keepTurn(turn, index); err != nil {
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

// keepTurn stores the user turn in the vault as a block of kind "user".
func (m *agentMemory) keepTurn(turn string, index int) (string, error) {
	if m.vault == nil {
		return "", errors.New("no vault")
	}
	c := tokens.Default().Count(turn)
	meta := diet.Describe("user", turn).Meta("user", -1, c.Tokens, !c.Exact)
	meta.Agent, meta.Session, meta.Turn = m.agent, m.session, index
	return m.vault.Put([]byte(turn), meta)
}

// Wait returns when every observation has been promoted.
func (m *agentMemory) Wait() { m.pending.Wait() }

func (m *agentMemory) candidates(ctx context.Context, turn string) ([]memory.Candidate, error) {
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
func (m *agentMemory) Search(ctx context.Context, query, scope string, k int) ([]tools.MemoryHit, error) {
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
		sc := "global"
		if memory.IsProject(h.Scope) {
			sc = "project"
		}
		out[i] = tools.MemoryHit{ID: h.ID, Text: h.Text, Kind: h.Kind, Scope: sc, Source: h.Provenance.Source, Score: h.Score}
	}
	return out, nil
}

// Save serves memory_save: the model's memory is promoted like any
// candidate, at a confidence that passes the threshold.
func (m *agentMemory) Save(ctx context.Context, text, kind, scope string) (string, string, error) {
	sc := m.project
	if scope == "global" {
		sc = memory.GlobalScope
	}
	act, mem, err := m.store.Promote(ctx, memory.Candidate{Text: text, Kind: kind, Confidence: 0.7}, sc,
		memory.Provenance{Session: m.session, Turn: int(m.turn.Load()), Source: memory.SourceTool})
	return string(act), mem.ID, err
}
