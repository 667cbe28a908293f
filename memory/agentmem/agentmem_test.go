package agentmem

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/vault"
)

// keeper is a TurnKeeper that remembers what it was given.
type keeper struct {
	mu     sync.Mutex
	blocks []string
	metas  []vault.Meta
}

func (k *keeper) Put(data []byte, m vault.Meta) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.blocks, k.metas = append(k.blocks, string(data)), append(k.metas, m)
	return fmt.Sprintf("ctx:%012d", len(k.blocks)), nil
}

// extractor is an Extractor with fixed candidates.
type extractor struct {
	heuristic bool
	cands     []sidecar.Candidate
}

func (e extractor) ExtractMemories(context.Context, string) ([]sidecar.Candidate, error) {
	return e.cands, nil
}

func (e extractor) Info() sidecar.Info { return sidecar.Info{Heuristic: e.heuristic} }

// newMemory returns an agent's memory on a fresh store, for workspace ws
// and commands run in dir.
func newMemory(t *testing.T, ws, dir string, v TurnKeeper, engine Extractor) (*Memory, *memory.Store) {
	t.Helper()
	store, err := memory.Open(t.TempDir(), memory.Options{Review: true})
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{Store: store, Vault: v, Workspace: ws, Dir: dir, Agent: "agent-2", Session: "s1", Engine: engine,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return m, store
}

// TestObserveKeepsTheTurnAsProvenance: a user turn that yields a memory
// is kept in the vault, exactly, and the memory cites it; a turn that
// yields none is not kept.
func TestObserveKeepsTheTurnAsProvenance(t *testing.T) {
	v := &keeper{}
	m, store := newMemory(t, "/src/app", "/src/app", v, nil)
	ctx := context.Background()
	m.Observe(ctx, "what time is it?", 1)
	turn := "Remember that the staging database is db-staging.internal."
	m.Observe(ctx, turn, 3)
	m.Wait()
	if len(v.blocks) != 1 || v.blocks[0] != turn {
		t.Fatalf("kept blocks %q, want only the turn that taught something", v.blocks)
	}
	if meta := v.metas[0]; meta.Kind != "user" || meta.Agent != "agent-2" || meta.Session != "s1" || meta.Turn != 3 {
		t.Fatalf("kept block's meta %+v", meta)
	}
	got, err := store.List(ctx, memory.ProjectScope("/src/app"))
	if err != nil || len(got) != 1 || got[0].Text != "the staging database is db-staging.internal" {
		t.Fatalf("memories %+v %v", got, err)
	}
	prov := got[0].Provenance
	if prov.Source != memory.SourceUser || prov.Session != "s1" || prov.Turn != 3 || len(prov.VaultIDs) != 1 {
		t.Fatalf("provenance %+v", prov)
	}
}

// TestObserveAsksTheSidecarOnlyWithAModel: a sidecar with a model
// proposes the candidates; the heuristic one is passed over for the
// store's rules.
func TestObserveAsksTheSidecarOnlyWithAModel(t *testing.T) {
	cands := []sidecar.Candidate{{Text: "the docs are built with mkdocs", Kind: "remember", Confidence: 0.9}}
	for _, tt := range []struct {
		heuristic bool
		want      int
	}{{false, 1}, {true, 0}} {
		m, store := newMemory(t, "/src/app", "", nil, extractor{heuristic: tt.heuristic, cands: cands})
		m.Observe(context.Background(), "build the docs", 1)
		m.Wait()
		if n := store.Count(memory.ProjectScope("/src/app")); n != tt.want {
			t.Errorf("heuristic=%v: %d memories, want %d", tt.heuristic, n, tt.want)
		}
	}
}

// TestSaveKeepsGlobalMemoriesForApproval: memory_save stores a project
// memory at once, while a global one waits in the approval queue; search
// and recall see the scopes the agent asks for.
func TestSaveKeepsGlobalMemoriesForApproval(t *testing.T) {
	m, store := newMemory(t, "/src/app", "", nil, nil)
	ctx := context.Background()
	if act, id, err := m.Save(ctx, "the API server listens on port 9090", "remember", "project"); err != nil || act != string(memory.ActionAdd) || id == "" {
		t.Fatalf("project save: %q %q %v", act, id, err)
	}
	if act, _, err := m.Save(ctx, "always run the setup script first", "remember", "global"); err != nil || act != string(memory.ActionPending) {
		t.Fatalf("global save: %q %v", act, err)
	}
	if p := store.Pending(); len(p) != 1 || p[0].Scope != memory.GlobalScope || p[0].Provenance.Source != memory.SourceTool {
		t.Fatalf("pending %+v", p)
	}
	if _, err := store.Add(ctx, memory.Memory{Text: "the API gateway runs on port 8080", Kind: "remember", Scope: memory.GlobalScope}); err != nil {
		t.Fatal(err)
	}
	for scope, want := range map[string]int{"": 2, "project": 1, "global": 1} {
		hits, err := m.Search(ctx, "which port", scope, 5)
		if err != nil || len(hits) != want {
			t.Errorf("search in %q: %+v %v, want %d hits", scope, hits, err, want)
		}
	}
	if block, err := m.Recall(ctx, "which port does the API server listen on?"); err != nil || !strings.Contains(block, "port 9090") {
		t.Fatalf("recall: %q %v", block, err)
	}
}
