package app

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

// textModel is a sidecar.Model that records the texts it embeds; its
// vector is the text's length, so a prefix shows.
type textModel struct {
	mu     sync.Mutex
	texts  []string
	closed bool
}

func (m *textModel) Complete(context.Context, string, sidecar.CompleteOptions) (sidecar.Completion, error) {
	return sidecar.Completion{}, errors.New("an embedding model")
}

func (m *textModel) Embed(_ context.Context, text string) ([]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.texts = append(m.texts, text)
	return []float32{float32(len(text)), 1}, nil
}

func (m *textModel) Tokenize(string) ([]int, error) { return nil, nil }
func (m *textModel) Metadata() map[string]string    { return nil }
func (m *textModel) Close() error                   { m.closed = true; return nil }
func (m *textModel) embedded() []string             { m.mu.Lock(); defer m.mu.Unlock(); return m.texts }
func (m *textModel) loader(loads *int) sidecar.Loader {
	return func(string, sidecar.LoadProgress) (sidecar.Model, error) {
		*loads++
		return m, nil
	}
}

// writeModel writes a generated model as DATA/models/name.
func writeModel(t *testing.T, dataDir, name string, cfg ggufgen.Config) string {
	t.Helper()
	path := filepath.Join(dataDir, "models", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ggufgen.Write(path, cfg); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEmbedderIDs(t *testing.T) {
	data := t.TempDir()
	writeModel(t, data, "qwen.gguf", ggufgen.Config{})
	for _, tc := range []struct {
		cfg  config.Config
		id   string
		fail string
	}{
		{cfg: config.Config{}, id: "hash:512"},
		{cfg: config.Config{MemoryEmbedder: "hash"}, id: "hash:512"},
		{cfg: config.Config{MemoryEmbedder: "sidecar"}, id: "sidecar:qwen.gguf"},
		{cfg: config.Config{MemoryEmbedder: "openai:text-embedding-3-small", BaseURL: "http://llm.lan:8080/v1"}, id: "openai:text-embedding-3-small@llm.lan:8080"},
		{cfg: config.Config{MemoryEmbedder: "openai:m"}, fail: "needs base_url"},
		{cfg: config.Config{MemoryEmbedder: "gguf:"}, fail: "want hash, sidecar, openai:MODEL or gguf:PATH"},
		{cfg: config.Config{MemoryEmbedder: "word2vec"}, fail: "want hash"},
	} {
		e, err := NewEmbedder(data, tc.cfg, sidecar.Heuristic{}, nil)
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("%q: %v, want an error saying %q", tc.cfg.MemoryEmbedder, err, tc.fail)
			}
			continue
		}
		if err != nil || e.ID != tc.id || e.Document == nil || e.Query == nil {
			t.Errorf("%q: ID %q, error %v; want %q", tc.cfg.MemoryEmbedder, e.ID, err, tc.id)
		}
	}
	if _, err := NewEmbedder(data, config.Config{MemoryEmbedder: "sidecar"}, nil, nil); err == nil {
		t.Error("sidecar without an engine")
	}
}

// TestGGUFEmbedder opens memory_embedder = "gguf:…": the identity names
// the file, its content and its dimensions; the model loads on the first
// embedding, once; nomic-embed gets its task prefixes.
func TestGGUFEmbedder(t *testing.T) {
	data := t.TempDir()
	abs := writeModel(t, data, "bge.gguf", ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingCLS})
	writeModel(t, data, "other.gguf", ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingCLS, Seed: 2})
	writeModel(t, data, "nomic.gguf", ggufgen.Config{Architecture: ggufgen.ArchNomicBERT, Pooling: gguf.PoolingMean, Embedding: 32})
	model, loads := &textModel{}, 0
	loader := model.loader(&loads)

	open := func(setting string) Embedder {
		t.Helper()
		e, err := NewEmbedder(data, config.Config{MemoryEmbedder: setting}, nil, loader)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	rel, byPath, other := open("gguf:bge.gguf"), open("gguf:"+abs), open("gguf:other.gguf")
	if !regexp.MustCompile(`^gguf:bge\.gguf:[0-9a-f]{16}:64$`).MatchString(rel.ID) || rel.ID != byPath.ID {
		t.Errorf("IDs %q and %q of the same file", rel.ID, byPath.ID)
	}
	if other.ID == rel.ID || !strings.HasPrefix(other.ID, "gguf:other.gguf:") {
		t.Errorf("another model's ID %q", other.ID)
	}
	if loads != 0 {
		t.Fatal("the model loaded before its first use")
	}
	for range 3 {
		if v, err := rel.Document(context.Background(), "hello"); err != nil || len(v) != 2 {
			t.Fatalf("embedding: %v %v", v, err)
		}
	}
	if _, err := rel.Query(context.Background(), "hello"); err != nil || loads != 1 {
		t.Errorf("%d loads for four embeddings (error %v)", loads, err)
	}
	nomic := open("gguf:nomic.gguf")
	if !strings.HasSuffix(nomic.ID, ":32") {
		t.Errorf("nomic ID %q", nomic.ID)
	}
	if _, err := nomic.Document(context.Background(), "kws uses pnpm"); err != nil {
		t.Fatal(err)
	}
	if _, err := nomic.Query(context.Background(), "package manager?"); err != nil {
		t.Fatal(err)
	}
	got := model.embedded()
	if want := []string{"hello", "hello", "hello", "hello", "search_document: kws uses pnpm", "search_query: package manager?"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("texts embedded %q, want %q", got, want)
	}
	if err := rel.Close(); err != nil || !model.closed {
		t.Errorf("Close: %v, model closed %v", err, model.closed)
	}
}

func TestGGUFEmbedderErrors(t *testing.T) {
	data := t.TempDir()
	writeModel(t, data, "chat.gguf", ggufgen.Config{})
	cut := filepath.Join(data, "models", "cut.gguf")
	if err := ggufgen.WriteCorrupt(cut, ggufgen.Config{Architecture: ggufgen.ArchBERT}, ggufgen.HeaderCut); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"missing.gguf": "no such file",
		"chat.gguf":    "not an embedding model",
		"cut.gguf":     "not a valid GGUF file",
	} {
		setting := "gguf:" + name
		_, err := NewEmbedder(data, config.Config{MemoryEmbedder: setting}, nil, nil)
		path := filepath.Join(data, "models", name)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "memory_embedder") {
			t.Errorf("%s: %v, want an error naming memory_embedder, %s and %q", name, err, path, want)
		}
		if _, err := OpenMemory(data, config.Config{MemoryEmbedder: setting}, nil, nil); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("OpenMemory with %s: %v", name, err)
		}
	}
	// A loader that fails fails each embedding with its error, once loaded.
	writeModel(t, data, "bge.gguf", ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingMean})
	loads := 0
	loader := func(string, sidecar.LoadProgress) (sidecar.Model, error) { loads++; return nil, sidecar.ErrBadModel }
	e, err := NewEmbedder(data, config.Config{MemoryEmbedder: "gguf:bge.gguf"}, nil, loader)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.Document(context.Background(), "x"); !errors.Is(err, sidecar.ErrBadModel) || !strings.Contains(err.Error(), "memory_embedder") {
			t.Errorf("embedding with a model that cannot load: %v", err)
		}
	}
	if loads != 1 {
		t.Errorf("%d loads of a model that cannot load", loads)
	}
}
