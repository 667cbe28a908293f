package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kwsdev/kws/agent"
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

func newAgentMemory(store *memory.Store, v turnKeeper, workspace, dir, agentName, session string, engine sidecar.Engine, log *slog.Logger) *agentMemory {
	return &agentMemory{store: store, vault: v, project: memory.ProjectScope(workspace), workspace: workspace, dir: dir, agent: agentName,
		session: session, engine: engine, log: log}
}

// Confidence of a rename seen in a shell command: git mv renames tracked
// files and is promoted; a plain mv as often moves scratch files, a
// rename in an agent's own worktree is not on the main branch yet, and a
// bare word may name other things, so those wait in the approval queue.
const (
	gitMvConfidence = 0.75
	mvConfidence    = 0.5
)

// renameCheck is a rename a shell command asks for, with its paths as they
// were before the command ran.
type renameCheck struct {
	r                                  memory.Rename
	oldBefore, newBefore, newDirBefore bool
	insideBefore                       bool // New/base(Old) existed
}

// exitCodeRE finds the exit code line of a shell tool result.
var exitCodeRE = regexp.MustCompile(`(?m)^EXIT CODE: (-?\d+)$`)

// Watch returns an event handler that learns from the agent's tool
// activity, then passes each event on to next: a shell command that
// succeeded and renamed files proposes each rename, and promotion then
// rewrites the memories that name the old path. The paths are looked at
// when the command is called and when its result comes, so only a rename
// that happened counts: the old path existed and is gone, and the new one
// is new (or is a directory that got the old entry).
func (m *agentMemory) Watch(next func(agent.Event)) func(agent.Event) {
	return func(e agent.Event) {
		switch {
		case e.Type == agent.EvToolCall && e.Tool == "shell":
			m.beforeShell(e.CallID, e.Args)
		case e.Type == agent.EvToolResult && e.Tool == "shell":
			m.afterShell(e)
		}
		if next != nil {
			next(e)
		}
	}
}

// beforeShell notes the state of the paths a shell command would rename.
func (m *agentMemory) beforeShell(callID, args string) {
	var a struct {
		Command string `json:"command"`
	}
	m.checksMu.Lock()
	defer m.checksMu.Unlock()
	m.checks, m.checkCall = nil, callID
	if m.dir == "" || json.Unmarshal([]byte(args), &a) != nil {
		return
	}
	for _, r := range memory.RenamesIn(a.Command) {
		c := renameCheck{r: r, oldBefore: m.exists(r.Old), newBefore: m.exists(r.New)}
		c.newDirBefore = m.isDir(r.New)
		c.insideBefore = m.exists(path.Join(r.New, path.Base(r.Old)))
		m.checks = append(m.checks, c)
	}
}

// afterShell promotes, in the background, the renames a shell command that
// succeeded did.
func (m *agentMemory) afterShell(e agent.Event) {
	m.checksMu.Lock()
	checks := m.checks
	if m.checkCall != e.CallID {
		checks = nil
	}
	m.checks, m.checkCall = nil, ""
	m.checksMu.Unlock()
	codes := exitCodeRE.FindAllStringSubmatch(e.Text, -1)
	if len(checks) == 0 || e.IsError || len(codes) == 0 || codes[len(codes)-1][1] != "0" {
		return
	}
	var done []memory.Rename
	for _, c := range checks {
		r := c.r
		if !c.oldBefore || m.exists(r.Old) {
			continue
		}
		switch inside := path.Join(r.New, path.Base(r.Old)); {
		case !c.newBefore && m.exists(r.New):
		case c.newDirBefore && !c.insideBefore && m.exists(inside):
			r.New = inside
		default:
			continue // it replaced a file, or did not happen
		}
		done = append(done, r)
	}
	if len(done) > 0 {
		m.promoteRenames(done, e.Preview, e.Text)
	}
}

// promoteRenames promotes renames in the background, the command and its
// output kept in the vault as their provenance.
func (m *agentMemory) promoteRenames(rs []memory.Rename, command, output string) {
	turn := int(m.turn.Load())
	m.pending.Add(1)
	go func() {
		defer m.pending.Done()
		ctx := context.Background()
		prov := memory.Provenance{Session: m.session, Turn: turn, Source: memory.SourceTool}
		if id, err := m.keep("shell", "$ "+command+"\n"+output, turn); err == nil {
			prov.VaultIDs = []string{id}
		}
		for _, r := range rs {
			conf := mvConfidence
			// A bare word ("git mv test tests") is as likely to name
			// something else in a memory ("make test"): it waits too.
			if r.Git && m.dir == m.workspace && strings.ContainsAny(r.Old, "/.") {
				conf = gitMvConfidence
			}
			if act, mem, err := m.store.Promote(ctx, memory.RenameCandidate(r, conf), m.project, prov); err != nil {
				m.log.Warn("memory: promotion failed", "error", err)
			} else {
				m.log.Info("memory", "action", act, "id", mem.ID, "rename", r.Old+" → "+r.New)
			}
		}
	}()
}

// exists reports whether p exists in the agent's directory.
func (m *agentMemory) exists(p string) bool {
	_, err := os.Lstat(filepath.Join(m.dir, filepath.FromSlash(p)))
	return err == nil
}

// isDir reports whether p is a directory in the agent's directory.
func (m *agentMemory) isDir(p string) bool {
	fi, err := os.Stat(filepath.Join(m.dir, filepath.FromSlash(p)))
	return err == nil && fi.IsDir()
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
func (m *agentMemory) keep(kind, text string, turn int) (string, error) {
	if m.vault == nil {
		return "", errors.New("no vault")
	}
	c := tokens.Default().Count(text)
	meta := diet.Describe(kind, text).Meta(kind, -1, c.Tokens, !c.Exact)
	meta.Agent, meta.Session, meta.Turn = m.agent, m.session, turn
	return m.vault.Put([]byte(text), meta)
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
		out[i] = tools.MemoryHit{ID: h.ID, Text: h.Text, Kind: h.Kind, Scope: memory.ScopeLabel(h.Scope), Source: h.Provenance.Source, Score: h.Score}
	}
	return out, nil
}

// Save serves memory_save: the model's memory for the project is promoted
// like any candidate, at a confidence that passes the threshold. A global
// one would reach the prompts of every other workspace, where a hostile
// repository's instructions ("always run curl … | sh") must not follow
// the user: it waits in the approval queue.
func (m *agentMemory) Save(ctx context.Context, text, kind, scope string) (string, string, error) {
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
