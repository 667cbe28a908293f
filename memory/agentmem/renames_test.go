package agentmem

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/memory"
)

// workspace makes a directory holding files.
func workspace(t *testing.T, files ...string) string {
	t.Helper()
	ws := t.TempDir()
	for _, f := range files {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// shell plays one shell call through handle: the call, then do (what the
// command did), then its result with exit code.
func shell(t *testing.T, handle func(agent.Event), id, command, code string, do func()) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"command": command})
	handle(agent.Event{Type: agent.EvToolCall, Tool: "shell", CallID: id, Args: string(args)})
	do()
	handle(agent.Event{Type: agent.EvToolResult, Tool: "shell", CallID: id, Preview: command, Text: "EXIT CODE: " + code})
}

// move renames old to new in dir.
func move(t *testing.T, dir string, pairs ...string) func() {
	return func() {
		for i := 0; i+1 < len(pairs); i += 2 {
			if err := os.Rename(filepath.Join(dir, pairs[i]), filepath.Join(dir, pairs[i+1])); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestWatchLearnsRenamesThatHappened: git mv of a path rewrites the
// memories naming it, with the command kept as provenance; a plain mv and
// a move into a directory wait for approval; a file replaced by a rename
// and a rename that did not happen propose nothing. Every event is passed
// on.
func TestWatchLearnsRenamesThatHappened(t *testing.T) {
	ws := workspace(t, "internal/parse/parse.go", "scratch.txt", "conf.json", "conf.tmp", "a.txt", "docs/index.md")
	v := &keeper{}
	m, store := newMemory(t, ws, ws, v, nil)
	ctx, scope := context.Background(), memory.ProjectScope(ws)
	if _, err := store.Add(ctx, memory.Memory{Text: "the parser lives in internal/parse", Kind: "path", Scope: scope}); err != nil {
		t.Fatal(err)
	}
	var passed int
	handle := m.Watch(func(agent.Event) { passed++ })
	command := "git mv internal/parse internal/parser && mv scratch.txt notes.txt && mv conf.tmp conf.json && mv a.txt docs && mv missing.txt gone.txt"
	shell(t, handle, "c1", command, "0", move(t, ws, "internal/parse", "internal/parser", "scratch.txt", "notes.txt",
		"conf.tmp", "conf.json", "a.txt", "docs/a.txt"))
	m.Wait()
	if passed != 2 {
		t.Fatalf("%d events passed on, want 2", passed)
	}
	got, err := store.List(ctx, scope)
	if err != nil || len(got) != 1 || got[0].Text != "the parser lives in internal/parser" {
		t.Fatalf("memories after the rename: %+v %v", got, err)
	}
	if prov := got[0].Provenance; prov.Source != memory.SourceTool || len(prov.VaultIDs) != 1 {
		t.Fatalf("provenance %+v", prov)
	}
	if len(v.blocks) != 1 || v.blocks[0] != "$ "+command+"\nEXIT CODE: 0" || v.metas[0].Kind != "shell" {
		t.Fatalf("kept blocks %q", v.blocks)
	}
	want := map[string]bool{"`scratch.txt` was renamed to `notes.txt`": true, "`a.txt` was renamed to `docs/a.txt`": true}
	pending := store.Pending()
	for _, p := range pending {
		if !want[p.Candidate.Text] || p.Candidate.Confidence != mvConfidence {
			t.Errorf("unexpected pending %+v", p.Candidate)
		}
		delete(want, p.Candidate.Text)
	}
	if len(want) > 0 {
		t.Errorf("not pending: %v (pending %+v)", want, pending)
	}
}

// TestWatchLearnsNothingFromFailures: a command that failed, a result of
// another call, and a git mv in the agent's own worktree do not rewrite
// memories; the worktree's rename waits for approval.
func TestWatchLearnsNothingFromFailures(t *testing.T) {
	ws := workspace(t, "pkg/a/one.go", "pkg/b/two.go", "pkg/c/three.go")
	for _, tt := range []struct {
		name, workspace, dir, code, resultID string
		pending                              int
	}{
		{"exit code 1", ws, "pkg/a", "1", "c1", 0},
		{"another call's result", ws, "pkg/b", "0", "c2", 0},
		{"a worktree", t.TempDir(), "pkg/c", "0", "c1", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, store := newMemory(t, tt.workspace, ws, nil, nil)
			handle := m.Watch(nil)
			dir := tt.dir
			args, _ := json.Marshal(map[string]string{"command": "git mv " + dir + " " + dir + "2"})
			handle(agent.Event{Type: agent.EvToolCall, Tool: "shell", CallID: "c1", Args: string(args)})
			move(t, ws, dir, dir+"2")()
			handle(agent.Event{Type: agent.EvToolResult, Tool: "shell", CallID: tt.resultID, Text: "EXIT CODE: " + tt.code})
			m.Wait()
			if n := len(store.Pending()); n != tt.pending {
				t.Fatalf("%d pending, want %d", n, tt.pending)
			}
			if n := store.Count(memory.ProjectScope(tt.workspace)); n != 0 {
				t.Fatalf("%d memories promoted", n)
			}
		})
	}
}
