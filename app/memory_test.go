package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kwsdev/kws/memory"
)

// TestWorkstationShowsMemoryCandidatesWaiting queues candidates the way an
// agent's memory does, off the UI goroutine: the memory store's event
// puts their count in the status bar, the memory pane's hints name its
// approve and delete keys at 80 columns, and approving the last one
// clears the count.
func TestWorkstationShowsMemoryCandidatesWaiting(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			r := newWSRig(t, size[0], size[1], false)
			r.waitFor("$")
			store := r.w.st.memory
			ctx := context.Background()
			for _, text := range []string{"the parser lives in internal/parse", "tests run with make test"} {
				if act, _, err := store.Promote(ctx, memory.Candidate{Text: text, Kind: "path", Confidence: 0.3},
					memory.ProjectScope(r.ws), memory.Provenance{Source: "user"}); err != nil || act != memory.ActionPending {
					t.Fatalf("promote %q: %v %v", text, act, err)
				}
			}
			r.waitFor("mem: 2 pending (C-b m)")
			r.press("Ctrl-b", "m")
			r.waitFor("a approve")
			hints := strings.Split(strings.TrimSuffix(r.d.Text(), "\n"), "\n")[size[1]-2]
			for _, want := range []string{"a approve", "D delete", "e edit", "Tab candidates"} {
				if !strings.Contains(hints, want) {
					t.Errorf("the memory pane's hints lack %q: %q", want, hints)
				}
			}
			r.press("Tab", "a")
			r.waitFor("mem: 1 pending")
			r.press("D")
			deadline := 0
			for strings.Contains(r.d.Text(), "mem: ") {
				if deadline++; deadline > 200 {
					t.Fatalf("the count stays after the queue emptied:\n%s", r.d.Text())
				}
				r.press() // a sync: the event's update runs
			}
		})
	}
}

// TestWorkstationShowsMemoryReembedding switches the memory's embedder to
// an embeddings server that answers the first memory and holds the
// others, then refuses them with text of its own: the store's events put
// the progress in the status bar, then the failure, and the memory pane
// spells out the server's reason, literally.
func TestWorkstationShowsMemoryReembedding(t *testing.T) {
	dataDir := t.TempDir()
	old, err := memory.Open(filepath.Join(dataDir, memory.DirName), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"the parser lives in internal/parse", "tests run with make test", "deploys go through make release"} {
		if _, err := old.Add(context.Background(), memory.Memory{Text: text, Kind: "path", Scope: memory.GlobalScope}); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Input) != 1 {
			http.Error(w, "want one input", http.StatusBadRequest)
			return
		}
		if calls.Add(1) > 1 {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			http.Error(w, `{"error":{"message":"[red]quota[-] exceeded \u001b[2J"}}`, http.StatusTooManyRequests)
			return
		}
		vec, _ := memory.HashEmbedder(memory.DefaultDims)(r.Context(), req.Input[0])
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"embedding": vec}}})
	}))
	// Closed after the workstation, whose store's Close ends the held
	// requests.
	t.Cleanup(srv.Close)
	r := newWSRigIn(t, 160, 48, false, dataDir, func(ws string, f *Flags) {
		t.Setenv("KWS_BASE_URL", srv.URL)
		if err := os.MkdirAll(filepath.Join(ws, ".kws"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".kws", "config.toml"), []byte(`memory_embedder = "openai:emb"`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	embedder := "openai:emb@" + strings.TrimPrefix(srv.URL, "http://")
	r.waitFor("mem: re-embedding 1/3")
	r.press("Ctrl-b", "m", "Ctrl-b", "z") // the memory pane, zoomed: its bottom line whole
	r.waitFor("re-embedding 1/3 for " + embedder)
	close(release)
	r.waitFor("mem: re-embed failed (C-b m)")
	r.waitFor("re-embedding for " + embedder + " stopped at 1/3")
	r.waitFor("quota[-]")
	if text := r.d.Text(); strings.Contains(text, "mem: re-embedding") || strings.Contains(text, "[2J") {
		t.Fatalf("the bar still shows progress, or the server's escape reaches the screen:\n%s", text)
	}
}
