package app

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/philippgille/chromem-go"

	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
)

// Embedder is memory's embedding model as memory_embedder chooses it.
type Embedder struct {
	// Document embeds a text to store.
	Document chromem.EmbeddingFunc
	// Query embeds a search query. It differs from Document for a model
	// trained with task prefixes (nomic-embed); see sidecar.EmbedPrefixes.
	Query chromem.EmbeddingFunc
	// ID names the embedder and its model: "hash:512",
	// "sidecar:<model file>", "openai:<model>@<base_url host>" or
	// "gguf:<file name>:<sha256 of its first MiB, 16 hex digits>:<dims>".
	// It is the same in every run and changes when the vectors would, so
	// vectors with different IDs must not be compared.
	ID string
	// close releases the model a gguf embedder loaded.
	close func() error
}

// Close releases the model the embedder loaded, if any.
func (e Embedder) Close() error {
	if e.close == nil {
		return nil
	}
	return e.close()
}

// NewEmbedder returns the embedder cfg's memory_embedder names:
//
//   - "hash" or "": memory's deterministic hashing embedder;
//   - "sidecar": engine's Embed (engine must not be nil);
//   - "openai:MODEL": the /embeddings endpoint of base_url;
//   - "gguf:PATH": an embedding GGUF (bge, MiniLM, nomic-embed…) run by
//     loader (Options.EmbedLoader); a relative PATH is under DATA/models.
//     With loader nil the embedder fails on its first use.
//
// A gguf model is checked now (the file exists, is a GGUF, is an embedding
// model) and loaded on the first embedding, so opening memory stays fast;
// an error names the file and the config key.
func NewEmbedder(dataDir string, cfg config.Config, engine sidecar.Engine, loader sidecar.Loader) (Embedder, error) {
	e := cfg.MemoryEmbedder
	switch {
	case e == "" || e == "hash":
		f := memory.HashEmbedder(memory.DefaultDims)
		return Embedder{Document: f, Query: f, ID: memory.HashEmbedderID(memory.DefaultDims)}, nil
	case e == "sidecar":
		if engine == nil {
			return Embedder{}, errors.New(`memory_embedder = "sidecar": no sidecar model`)
		}
		f := memory.FuncEmbedder(engine.Embed)
		return Embedder{Document: f, Query: f, ID: "sidecar:" + sidecarModelName(dataDir, cfg, engine)}, nil
	case strings.HasPrefix(e, "openai:") && len(e) > len("openai:"):
		model := strings.TrimPrefix(e, "openai:")
		if cfg.BaseURL == "" {
			return Embedder{}, fmt.Errorf("memory_embedder = %q needs base_url (or KWS_BASE_URL)", e)
		}
		host := cfg.BaseURL
		if u, err := url.Parse(cfg.BaseURL); err == nil && u.Host != "" {
			host = u.Host
		}
		f := memory.OpenAIEmbedder(cfg.BaseURL, cfg.APIKey, model, nil)
		return Embedder{Document: f, Query: f, ID: "openai:" + model + "@" + host}, nil
	case strings.HasPrefix(e, "gguf:") && len(e) > len("gguf:"):
		return newGGUFEmbedder(GGUFEmbedderPath(dataDir, e), e, loader)
	}
	return Embedder{}, fmt.Errorf("memory_embedder = %q: want hash, sidecar, openai:MODEL or gguf:PATH", e)
}

// GGUFEmbedderPath is the file memory_embedder = "gguf:PATH" names: PATH,
// or DATA/models/PATH when it is relative.
func GGUFEmbedderPath(dataDir, setting string) string {
	path := strings.TrimPrefix(setting, "gguf:")
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dataDir, "models", path)
}

// sidecarModelName is the file name of the sidecar's model: the loaded
// one, else the one the configuration names or DATA/models offers.
func sidecarModelName(dataDir string, cfg config.Config, engine sidecar.Engine) string {
	if p := engine.Info().Path; p != "" {
		return filepath.Base(p)
	}
	if p, err := sidecar.Locate(cfg.SidecarModel, dataDir); err == nil {
		return filepath.Base(p)
	}
	return engine.Info().Name
}

// ggufEmbedder loads its model on first use and keeps it, or the error.
type ggufEmbedder struct {
	path    string
	setting string
	loader  sidecar.Loader

	mu    sync.Mutex
	model sidecar.Model
	err   error
}

// newGGUFEmbedder checks the embedding GGUF at path, which memory_embedder
// = setting names, and returns its lazy embedder.
func newGGUFEmbedder(path, setting string, loader sidecar.Loader) (Embedder, error) {
	fail := func(err error) (Embedder, error) {
		return Embedder{}, fmt.Errorf("memory_embedder = %q: model file %s: %w", setting, path, err)
	}
	f, err := gguf.Read(path)
	if err != nil {
		return fail(err)
	}
	arch := f.String("general.architecture")
	if !f.EmbeddingModel() {
		return fail(fmt.Errorf("%s has no %s.pooling_type: a generation model, not an embedding model (memory_embedder = \"sidecar\" embeds with the sidecar's model)", arch, arch))
	}
	dims, ok := f.Get(arch + ".embedding_length")
	if !ok {
		return fail(fmt.Errorf("no %s.embedding_length", arch))
	}
	sum, err := headSum(path)
	if err != nil {
		return fail(err)
	}
	g := &ggufEmbedder{path: path, setting: setting, loader: loader}
	query, document := sidecar.EmbedPrefixes(arch)
	return Embedder{
		Document: g.embedWith(document),
		Query:    g.embedWith(query),
		ID:       fmt.Sprintf("gguf:%s:%s:%v", filepath.Base(path), sum, dims),
		close:    g.close,
	}, nil
}

// headSum is the first 16 hex digits of the SHA-256 of the file's first
// MiB: its header and first tensors, which differ between models and
// quantisations, read in a millisecond even from a file of gigabytes.
func headSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, f, 1<<20); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// embedWith returns the embedding function writing prefix before each
// text.
func (g *ggufEmbedder) embedWith(prefix string) chromem.EmbeddingFunc {
	return func(ctx context.Context, text string) ([]float32, error) {
		m, err := g.load()
		if err != nil {
			return nil, err
		}
		// memory names the failure (memory: embed …) itself.
		return m.Embed(ctx, prefix+text)
	}
}

// load loads the model once; a failed load is not retried, as it would
// fail the same way on every memory lookup.
func (g *ggufEmbedder) load() (sidecar.Model, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.model != nil || g.err != nil {
		return g.model, g.err
	}
	if g.loader == nil {
		g.err = fmt.Errorf("memory_embedder = %q: this kws has no GGUF runtime", g.setting)
		return nil, g.err
	}
	m, err := g.loader(g.path, nil)
	if err != nil {
		g.err = fmt.Errorf("memory_embedder = %q: %w", g.setting, err)
		return nil, g.err
	}
	g.model = m
	return m, nil
}

// close releases the model if it was loaded.
func (g *ggufEmbedder) close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.model == nil {
		return nil
	}
	err := g.model.Close()
	g.model, g.err = nil, errors.New("memory: the embedder is closed")
	return err
}
