package memory

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memoryText is the text of the i-th test memory; topicQuery finds it.
func memoryText(i int) string { return fmt.Sprintf("memory number %d is about topic%d", i, i) }

// topicQuery is a query whose best match is memoryText(i).
func topicQuery(i int) string { return fmt.Sprintf("topic%d", i) }

// gated is HashEmbedder(dims) under another name that lets free memory
// texts through and then holds each further one until release is closed
// or the call's context ends; queries (texts not starting "memory
// number") always pass. fail, when set, fails the memory texts after the
// free ones instead.
type gated struct {
	dims    int
	free    int64
	calls   atomic.Int64
	release chan struct{}
	fail    error
}

func newGated(dims int, free int64) *gated {
	return &gated{dims: dims, free: free, release: make(chan struct{})}
}

func (g *gated) embed(ctx context.Context, text string) ([]float32, error) {
	if strings.HasPrefix(text, "memory number") && g.calls.Add(1) > g.free {
		if g.fail != nil {
			return nil, g.fail
		}
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return hashEmbed(text, g.dims), nil
}

// opts are Options for a store embedding with g under the name id.
func (g *gated) opts(id string) Options {
	return Options{Embedder: g.embed, EmbedderID: id}
}

// fillStore adds n test memories to a new store in dir, with the default
// embedder, alternating between the project and the global scope.
func fillStore(t *testing.T, dir string, n int) []Memory {
	t.Helper()
	s := mustOpen(t, dir, Options{})
	var out []Memory
	for i := range n {
		scope := GlobalScope
		if i%2 == 1 {
			scope = proj
		}
		out = append(out, mustAdd(t, s, scope, "note", memoryText(i)))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitReembed waits, through Watch, until the store's re-embedding
// satisfies until, and returns it.
func waitReembed(t *testing.T, s *Store, until func(Reembedding) bool) Reembedding {
	t.Helper()
	heard := make(chan struct{}, 1)
	cancel := s.Watch(func() {
		select {
		case heard <- struct{}{}:
		default:
		}
	})
	defer cancel()
	timeout := time.After(time.Minute)
	for {
		r := s.Reembedding()
		if until(r) {
			return r
		}
		select {
		case <-heard:
		case <-timeout:
			t.Fatalf("re-embedding never got there: %+v", r)
		}
	}
}

func finished(r Reembedding) bool { return !r.Running }

// checkAllFound checks that every memory of want is in s, recorded as made
// by embedder ("hash:N") and holding that embedder's vector of its text,
// and is the best hit of its own topic.
func checkAllFound(t *testing.T, s *Store, want []Memory, embedder string) {
	t.Helper()
	ctx := context.Background()
	dims, err := strconv.Atoi(strings.TrimPrefix(embedder, "hash:"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range want {
		got, err := s.Get(m.ID)
		if err != nil || got.Text != m.Text || got.Embedder != embedder {
			t.Fatalf("memory %s: %+v %v; want %q by %s", m.ID, got, err, m.Text, embedder)
		}
		s.mu.RLock()
		vec := s.docs[got.Scope][got.ID].Embedding
		s.mu.RUnlock()
		if !slices.Equal(vec, hashEmbed(m.Text, dims)) {
			t.Fatalf("memory %s holds a vector that is not %s's", m.ID, embedder)
		}
		hits, err := s.Search(ctx, topicQuery(i), nil, 1)
		if err != nil || len(hits) != 1 || hits[0].ID != m.ID {
			t.Fatalf("search %q = %+v, %v; want %s", topicQuery(i), hits, err, m.ID)
		}
	}
}

// TestEmbedderSwitchReembeds opens a store with another embedder: the
// memories are re-embedded in the background, in bounded numbers at a
// time. Meanwhile every memory is listed, the ones done are found by
// similarity and the others are not compared, and new memories can be
// added; afterwards every vector is the new embedder's, and reopening
// re-embeds nothing.
func TestEmbedderSwitchReembeds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mems := fillStore(t, dir, 60)

	g := newGated(256, 30)
	s := mustOpen(t, dir, g.opts("hash:256"))
	defer s.Close()
	if s.Embedder() != "hash:256" {
		t.Fatalf("Embedder() = %q", s.Embedder())
	}
	r := waitReembed(t, s, func(r Reembedding) bool { return r.Done >= reembedNotifyEvery })
	if !r.Running || r.Total != len(mems) || r.Embedder != "hash:256" || r.Err != nil {
		t.Fatalf("during the re-embedding: %+v", r)
	}
	if !strings.HasPrefix(r.String(), "re-embedding ") || !strings.Contains(r.String(), "/60 for hash:256") {
		t.Fatalf("status line %q", r.String())
	}
	if n := g.calls.Load(); n > g.free+reembedWorkers {
		t.Fatalf("%d embeddings at once past the free ones; want at most %d", n-g.free, reembedWorkers)
	}
	if got := s.Count(); got != len(mems) {
		t.Fatalf("Count during the re-embedding = %d, want %d", got, len(mems))
	}
	var listed int
	for _, sc := range []string{GlobalScope, proj} {
		listed += len(listTexts(t, s, sc))
	}
	if listed != len(mems) {
		t.Fatalf("listed %d memories during the re-embedding, want %d", listed, len(mems))
	}
	// Every memory stays searchable during the re-embedding: the words
	// find those still waiting, while only the new embedder's vectors are
	// compared with the query (TestVectorSizeNeverReachesChromem).
	hits, err := s.Search(ctx, "number is about topic", nil, 100)
	if err != nil || len(hits) != len(mems) {
		t.Fatalf("search during the re-embedding: %d hits, %v; want all %d", len(hits), err, len(mems))
	}
	waiting := 0
	for _, h := range hits {
		if h.Embedder != "hash:256" {
			waiting++
		}
	}
	if waiting == 0 {
		t.Fatal("the search found no memory still waiting to be re-embedded")
	}
	added := mustAdd(t, s, proj, "note", "also "+memoryText(len(mems)))
	if added.Embedder != "hash:256" {
		t.Fatalf("a memory added during the re-embedding records %q", added.Embedder)
	}
	mems = append(mems, added)

	close(g.release)
	r = waitReembed(t, s, finished)
	if r.Err != nil || r.Done != r.Total || r.Total != len(mems)-1 {
		t.Fatalf("after the re-embedding: %+v", r)
	}
	if !strings.Contains(r.String(), "re-embedded 60 memories for hash:256") {
		t.Fatalf("status line %q", r.String())
	}
	checkAllFound(t, s, mems, "hash:256")
	s.Close()

	calls := g.calls.Load()
	s = mustOpen(t, dir, g.opts("hash:256"))
	if r := s.Reembedding(); r.Total != 0 || r.String() != "" || g.calls.Load() != calls {
		t.Fatalf("reopening with the same embedder re-embeds: %+v", r)
	}
	checkAllFound(t, s, mems, "hash:256")
}

// TestReembedFailureKeepsMemories: an embedder that fails (a server that
// is down) stops the re-embedding with an error kept for the status; no
// memory is lost, and the next open with a working embedder finishes.
func TestReembedFailureKeepsMemories(t *testing.T) {
	dir := t.TempDir()
	mems := fillStore(t, dir, 12)
	down := errors.New("connection refused")
	g := newGated(256, 5)
	g.fail = down
	s := mustOpen(t, dir, g.opts("hash:256"))
	r := waitReembed(t, s, finished)
	if !errors.Is(r.Err, down) || r.Done >= r.Total || !strings.Contains(r.String(), "connection refused") {
		t.Fatalf("after the embedder failed: %+v (%s)", r, r)
	}
	if s.Count() != len(mems) {
		t.Fatalf("%d memories left of %d", s.Count(), len(mems))
	}
	s.Close()

	s = mustOpen(t, dir, newGated(256, 1<<30).opts("hash:256"))
	defer s.Close()
	if r := waitReembed(t, s, finished); r.Err != nil || r.Done != r.Total || r.Total > len(mems)-5 {
		t.Fatalf("the retry: %+v", r)
	}
	checkAllFound(t, s, mems, "hash:256")
}

// TestCloseStopsReembedding: Close returns while the embedder hangs, and
// what was re-embedded stays re-embedded.
func TestCloseStopsReembedding(t *testing.T) {
	dir := t.TempDir()
	mems := fillStore(t, dir, 40)
	g := newGated(256, 30)
	s := mustOpen(t, dir, g.opts("hash:256"))
	waitReembed(t, s, func(r Reembedding) bool { return r.Done >= reembedNotifyEvery })
	s.Close()
	if r := s.Reembedding(); r.Running || r.Err != nil {
		t.Fatalf("after Close: %+v", r)
	}
	s = mustOpen(t, dir, newGated(256, 1<<30).opts("hash:256"))
	defer s.Close()
	if r := s.Reembedding(); r.Total > len(mems)-reembedNotifyEvery {
		t.Fatalf("the next open re-embeds %d, want the %d or fewer left", r.Total, len(mems)-reembedNotifyEvery)
	}
	waitReembed(t, s, finished)
	checkAllFound(t, s, mems, "hash:256")
}

// TestVectorSizeNeverReachesChromem: an embedder that changes its
// vectors' size under the same name gets ErrEmbedder, naming both sizes,
// from Add and Search, never a chromem error, and loses nothing.
func TestVectorSizeNeverReachesChromem(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, Options{Embedder: HashEmbedder(64), EmbedderID: "mine"})
	m := mustAdd(t, s, GlobalScope, "note", "the CI runs on Go 1.26")
	s.Close()

	s = mustOpen(t, dir, Options{Embedder: HashEmbedder(32), EmbedderID: "mine"})
	defer s.Close()
	if r := s.Reembedding(); r.Total != 0 {
		t.Fatalf("re-embedding under the same name: %+v", r)
	}
	_, err := s.Search(ctx, "which Go version does CI use", nil, 1)
	if !errors.Is(err, ErrEmbedder) || !strings.Contains(err.Error(), "32 numbers, its others have 64") {
		t.Fatalf("Search with vectors of another size: %v", err)
	}
	if _, err := s.Add(ctx, Memory{Text: "the linter is golangci-lint", Scope: GlobalScope}); !errors.Is(err, ErrEmbedder) {
		t.Fatalf("Add with a vector of another size: %v", err)
	}
	if got, err := s.Get(m.ID); s.Count() != 1 || err != nil || got.Text != m.Text {
		t.Fatalf("after the refusals: %d memories, %+v %v", s.Count(), got, err)
	}
}

// helperReembed is TestHelperProcess's "reembed": it opens the store in
// dir with a hash:256 embedder, which re-embeds it, prints "ready" once
// the first progress event (hold "1": the first memory) or reembedNotifyEvery
// memories are done, and waits to be killed. With hold "1" the embedder
// holds every memory after the first reembedNotifyEvery, so the kill finds
// it embedding; else it finds it writing.
func helperReembed(dir, hold string) {
	g := newGated(256, 1<<30)
	need := 1
	if hold == "1" {
		g.free, need = reembedNotifyEvery, reembedNotifyEvery
	}
	s, err := Open(dir, g.opts("hash:256"))
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	ready := make(chan struct{})
	var once sync.Once
	s.Watch(func() {
		if s.Reembedding().Done >= need {
			once.Do(func() { close(ready) })
		}
	})
	<-ready
	fmt.Println("ready")
	select {}
}

// TestKillDuringReembedding kills (SIGKILL) a process in the middle of
// re-embedding a store, once while it waits for the embedder and once
// while it writes: every memory is still there and readable, nothing is
// damaged, the memories it finished are found by similarity, and the
// next open re-embeds only the rest and ends with every vector the new
// embedder's.
func TestKillDuringReembedding(t *testing.T) {
	for _, tt := range []struct {
		name string
		hold string
	}{{"while embedding", "1"}, {"while writing", "0"}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mems := fillStore(t, dir, 200)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), helperEnv+"=reembed", "KWS_MEMORY_TEST_DIR="+dir, "KWS_MEMORY_TEST_ARG="+tt.hold)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				t.Fatalf("helper said %q, %v", line, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			// Reading needs no embedder at all.
			s := mustOpen(t, dir, Options{Embedder: func(context.Context, string) ([]float32, error) {
				return nil, errors.New("no embedder")
			}, EmbedderID: "none"})
			if d := s.Damaged(); len(d) != 0 {
				t.Fatalf("the kill damaged %v", d)
			}
			done := 0
			for _, m := range mems {
				got, err := s.Get(m.ID)
				if err != nil || got.Text != m.Text {
					t.Fatalf("memory %s after the kill: %+v %v", m.ID, got, err)
				}
				if got.Embedder == "hash:256" {
					done++
				}
			}
			if done == 0 || (tt.hold == "1" && done > reembedNotifyEvery) {
				t.Fatalf("%d memories re-embedded before the kill", done)
			}
			s.Close()

			s = mustOpen(t, dir, newGated(256, 1<<30).opts("hash:256"))
			defer s.Close()
			if r := s.Reembedding(); r.Total != len(mems)-done {
				t.Fatalf("the next open re-embeds %d, want the %d left", r.Total, len(mems)-done)
			}
			if r := waitReembed(t, s, finished); r.Err != nil || r.Done != r.Total {
				t.Fatalf("resumed re-embedding: %+v", r)
			}
			checkAllFound(t, s, mems, "hash:256")
		})
	}
}
