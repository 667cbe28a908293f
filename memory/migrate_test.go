package memory

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/philippgille/chromem-go"
)

// writeOldMemory writes m into the store dir as kws wrote memories before
// they recorded their embedder: no embedder in the metadata, vec as the
// vector.
func writeOldMemory(t *testing.T, dir string, m Memory, vec []float32) {
	t.Helper()
	if err := writeGob(filepath.Join(dir, slot(m.Scope), metaFile), collectionMeta{Name: m.Scope}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(chromem.Document{ID: m.ID, Metadata: m.metadata(), Embedding: vec, Content: m.Text}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, slot(m.Scope), slot(m.ID)+docExt), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// foreignVector is a unit vector no HashEmbedder makes of text, as a
// sidecar model's would be.
func foreignVector(text string, dims int) []float32 {
	v := hashEmbed(text, dims)
	slices.Reverse(v)
	return v
}

// TestMergeOlderStores opens the one store of a data dir that still has
// the stores kws kept per embedder: the hashing embedder's memories,
// which record no embedder, are recognized by their vectors and need no
// re-embedding; the sidecar's and an OpenAI model's are copied in, except
// the one the store holds already, their pending candidate joins the
// queue, their folders are renamed, and their memories are re-embedded.
// A crash before a folder's rename (its copy put back) merges nothing
// twice.
func TestMergeOlderStores(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	main := filepath.Join(data, DirName)
	sidecar := filepath.Join(data, DirName+"-sidecar")
	openai := filepath.Join(data, DirName+"-openai-nomic-embed")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mem := func(id, scope, text string) Memory {
		return Memory{ID: id, Text: text, Kind: "note", Scope: scope, Confidence: 1, Created: at, Updated: at, Provenance: Provenance{Source: SourceManual}}
	}
	var want []Memory
	for _, m := range []Memory{
		mem("mem:000000000001", GlobalScope, "answer in British English"),
		mem("mem:000000000002", proj, "the API server listens on port 8080"),
	} {
		writeOldMemory(t, main, m, hashEmbed(m.Text, DefaultDims))
		want = append(want, m)
	}
	for _, m := range []Memory{
		mem("mem:00000000000a", proj, "the API server listens on port 8080"),   // in the store already
		mem("mem:000000000002", proj, "integration tests need docker running"), // its id is taken
		mem("mem:00000000000b", GlobalScope, "commit messages say why"),
	} {
		writeOldMemory(t, sidecar, m, foreignVector(m.Text, 64))
		if m.ID != "mem:00000000000a" {
			want = append(want, m)
		}
	}
	other := ProjectScope("/home/dev/src/other")
	m := mem("mem:00000000000c", other, "the other project builds with bazel")
	writeOldMemory(t, openai, m, foreignVector(m.Text, 96))
	want = append(want, m)
	cand := Pending{ID: "cand:00000000000d", Candidate: Candidate{Text: "we deploy on Fridays", Kind: "decision", Confidence: 0.4},
		Scope: proj, Provenance: Provenance{Source: SourceUser}, Created: at}
	data1, _ := json.Marshal([]Pending{cand})
	if err := os.WriteFile(filepath.Join(sidecar, pendingFile), data1, 0o600); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "sidecar")
	if out, err := exec.Command("cp", "-a", sidecar, backup).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}

	legacy := []Legacy{{Dir: sidecar, Embedder: "unrecorded:sidecar"}, {Dir: openai, Embedder: "unrecorded:openai:nomic-embed"}}
	check := func(s *Store) {
		t.Helper()
		if n := s.Count(); n != len(want) {
			t.Fatalf("%d memories after the merge, want %d", n, len(want))
		}
		byText := map[string]Memory{}
		for _, sc := range s.Scopes() {
			list, err := s.List(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range list {
				byText[m.Scope+"\x00"+m.Text] = m
			}
		}
		for _, w := range want {
			got, ok := byText[w.Scope+"\x00"+w.Text]
			if !ok || got.Kind != w.Kind || !got.Created.Equal(w.Created) {
				t.Fatalf("merged store lacks %q in %s: %+v", w.Text, w.Scope, got)
			}
		}
		if p := s.Pending(); len(p) != 1 || p[0].ID != cand.ID {
			t.Fatalf("pending after the merge: %+v", p)
		}
		for _, l := range legacy {
			if _, err := os.Stat(l.Dir); !os.IsNotExist(err) {
				t.Fatalf("%s is still there: %v", l.Dir, err)
			}
		}
	}

	s := mustOpen(t, main, Options{Review: true, Migrate: legacy})
	check(s)
	if got, _ := s.Get("mem:000000000001"); got.Embedder != HashEmbedderID(DefaultDims) {
		t.Fatalf("an old hashing memory records %q", got.Embedder)
	}
	if r := s.Reembedding(); r.Total != 3 {
		t.Fatalf("re-embedding %d memories, want the 3 copied in", r.Total)
	}
	if r := waitReembed(t, s, finished); r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, w := range want {
		hits, err := s.Search(ctx, w.Text, []string{w.Scope}, 1)
		if err != nil || len(hits) != 1 || hits[0].Text != w.Text || hits[0].Embedder != HashEmbedderID(DefaultDims) {
			t.Fatalf("search %q: %+v %v", w.Text, hits, err)
		}
	}
	s.Close()
	for _, l := range legacy {
		if _, err := os.Stat(l.Dir + MigratedSuffix); err != nil {
			t.Fatalf("the merged folder was not kept: %v", err)
		}
	}

	// A crash after copying, before the rename: the old folder is back.
	if err := os.Rename(backup, sidecar); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, main, Options{Review: true, Migrate: legacy})
	defer s.Close()
	check(s)
	if _, err := os.Stat(sidecar + MigratedSuffix + ".1"); err != nil {
		t.Fatalf("the second merged folder did not get a name of its own: %v", err)
	}
}
