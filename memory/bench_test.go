package memory

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/philippgille/chromem-go"
)

// benchStores holds one store per size, built once per test binary in a
// temporary directory that TestMain removes.
var benchStores sync.Map // size → *benchStore

type benchStore struct {
	once  sync.Once
	dir   string
	store *Store
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	benchStores.Range(func(_, v any) bool {
		if d := v.(*benchStore).dir; d != "" {
			os.RemoveAll(d)
		}
		return true
	})
	os.Exit(code)
}

var (
	benchSubjects = strings.Fields("parser lexer vault sidecar agent diet session recorder shell pane theme config provider router scheduler cache index tokenizer embedder migration")
	benchVerbs    = strings.Fields("lives in uses prefers needs calls writes reads wraps replaces validates")
	benchObjects  = strings.Fields("internal/parse agent/tools bbolt chromem cobra tview JSONL gob TOML YAML postgres sqlite docker make pnpm go-test race-detector golden-files testdata ~/.config/kws")
)

// benchText returns a synthetic memory of a few words.
func benchText(r *rand.Rand) string {
	pick := func(w []string) string { return w[r.IntN(len(w))] }
	return fmt.Sprintf("the %s %s %s and %s %s (note %d)", pick(benchSubjects), pick(benchVerbs), pick(benchObjects),
		pick(benchVerbs), pick(benchObjects), r.IntN(1000))
}

// benchMemories opens a store holding n synthetic memories, half global
// and half in one project, embedded with the hashing embedder and written
// as the store writes them (without the fsyncs, which only make building
// slow).
func benchMemories(b *testing.B, n int) *Store {
	v, _ := benchStores.LoadOrStore(n, &benchStore{})
	bs := v.(*benchStore)
	bs.once.Do(func() {
		start := time.Now()
		if bs.dir, bs.err = os.MkdirTemp("", "kws-memory-bench-"); bs.err != nil {
			return
		}
		if bs.err = writeBenchFiles(bs.dir, n); bs.err != nil {
			return
		}
		bs.store, bs.err = Open(bs.dir, Options{})
		b.Logf("built %d memories in %v", n, time.Since(start).Round(time.Millisecond))
		// The first search builds the word index from the loaded memories.
		start = time.Now()
		if _, bs.err = bs.store.Search(context.Background(), "parser", nil, 1); bs.err != nil {
			return
		}
		b.Logf("indexed their words in %v", time.Since(start).Round(time.Millisecond))
	})
	if bs.err != nil {
		b.Fatal(bs.err)
	}
	return bs.store
}

// writeBenchFiles writes n synthetic memories' files into the store dir,
// embedding them on every CPU.
func writeBenchFiles(dir string, n int) error {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	var docs []chromem.Document
	slots := map[string]bool{} // ids must not share a file slot (see freeID)
	now := time.Now()
	for i, next := 0, 0; i < n; next++ {
		id := fmt.Sprintf("mem:%012x", next)
		if slots[slot(id)] {
			continue
		}
		slots[slot(id)] = true
		scope := GlobalScope
		if i%2 == 1 {
			scope = proj
		}
		i++
		m := Memory{ID: id, Text: benchText(r), Kind: "note", Scope: scope, Confidence: 1, Created: now, Updated: now,
			Provenance: Provenance{Source: SourceManual}, Embedder: HashEmbedderID(DefaultDims)}
		docs = append(docs, chromem.Document{ID: m.ID, Metadata: m.metadata(), Content: m.Text})
	}
	for _, scope := range []string{GlobalScope, proj} {
		if err := writeGob(filepath.Join(dir, slot(scope), metaFile), collectionMeta{Name: scope}); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, runtime.NumCPU())
	for w := range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(docs); i += runtime.NumCPU() {
				d := docs[i]
				d.Embedding = hashEmbed(d.Content, DefaultDims)
				var buf bytes.Buffer
				err := gob.NewEncoder(&buf).Encode(d)
				if err == nil {
					err = os.WriteFile(filepath.Join(dir, slot(d.Metadata[keyScope]), slot(d.ID)+docExt), buf.Bytes(), 0o600)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// BenchmarkRecall measures one recall (embedding the query, searching
// both scopes, formatting a 500-token block) at 10k and 50k memories.
func BenchmarkRecall(b *testing.B) {
	queries := []string{"where does the parser live", "which database does the vault use",
		"how do we run tests with the race detector", "the sidecar embedder config"}
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			s := benchMemories(b, n)
			if got := s.Count(); got != n {
				b.Fatalf("store holds %d memories, want %d", got, n)
			}
			ctx := context.Background()
			scopes := []string{proj, GlobalScope}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				block, _, err := s.Recall(ctx, queries[i%len(queries)], scopes, 500, nil)
				if err != nil || block == "" {
					b.Fatalf("recall: %q %v", block, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}

// BenchmarkOpen measures opening a store of 10k memories, as a kws
// command without a server does on every call: from the snapshot, and
// from the memory files (which then writes the snapshot).
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{10_000} {
		dir := benchMemories(b, n).Dir()
		quiet(b, dir)
		for _, from := range []string{"snapshot", "files"} {
			b.Run(fmt.Sprintf("memories=%d/%s", n, from), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if from == "files" {
						b.StopTimer()
						if err := os.Remove(filepath.Join(dir, snapshotFile)); err != nil && !os.IsNotExist(err) {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					s, err := Open(dir, Options{})
					if err != nil {
						b.Fatal(err)
					}
					if s.Count() != n || len(s.Damaged()) != 0 {
						b.Fatalf("opened %d memories, %d damaged; want %d", s.Count(), len(s.Damaged()), n)
					}
					s.Close()
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			})
		}
	}
}

// BenchmarkSearch measures one hybrid search for the top 10 (embedding
// the query, the word and the similarity rankings over both scopes, fusing
// them) at 10k and 50k memories, and each ranking alone: words (the BM25
// index) and similarity (the embedder and chromem-go's scan).
func BenchmarkSearch(b *testing.B) {
	queries := []string{"where does the parser live", "which database does the vault use",
		"how do we run tests with the race detector", "the sidecar embedder config"}
	ctx := context.Background()
	scopes := []string{proj, GlobalScope}
	for _, n := range []int{10_000, 50_000} {
		for _, part := range []struct {
			name string
			run  func(s *Store, q string) (int, error)
		}{
			{"hybrid", func(s *Store, q string) (int, error) {
				hits, err := s.Search(ctx, q, scopes, 10)
				return len(hits), err
			}},
			{"words", func(s *Store, q string) (int, error) {
				s.mu.RLock()
				defer s.mu.RUnlock()
				return len(s.lexRank(q, scopes, 10).words), nil
			}},
			{"similarity", func(s *Store, q string) (int, error) {
				hits, err := s.search(ctx, q, scopes, 10)
				return len(hits), err
			}},
		} {
			b.Run(fmt.Sprintf("memories=%d/%s", n, part.name), func(b *testing.B) {
				s := benchMemories(b, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if got, err := part.run(s, queries[i%len(queries)]); err != nil || got != 10 {
						b.Fatalf("%d hits, %v", got, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			})
		}
	}
}
