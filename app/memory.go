package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
)

// OpenMemory opens the data dir's memory store for the embedder cfg
// names: DATA/memory for the hashing embedder (the default),
// DATA/memory-sidecar, DATA/memory-openai-MODEL or DATA/memory-gguf-NAME
// for the others, since a store must be read with the embedder that
// filled it. engine embeds for "sidecar".
func OpenMemory(dataDir string, cfg config.Config, engine sidecar.Engine) (*memory.Store, error) {
	// Candidates under the promotion threshold wait in the memory pane's
	// approval queue.
	opts := memory.Options{Sensitive: diet.IsSensitive, Review: true}
	dir := memory.DirName
	switch e := cfg.MemoryEmbedder; {
	case e == "" || e == "hash":
	case e == "sidecar" && engine != nil:
		opts.Embedder, dir = memory.FuncEmbedder(engine.Embed), memory.DirName+"-sidecar"
	case strings.HasPrefix(e, "openai:") && len(e) > len("openai:"):
		model := strings.TrimPrefix(e, "openai:")
		if cfg.BaseURL == "" {
			return nil, fmt.Errorf("memory_embedder = %q needs base_url (or KWS_BASE_URL)", e)
		}
		opts.Embedder = memory.OpenAIEmbedder(cfg.BaseURL, cfg.APIKey, model, nil)
		dir = memory.DirName + "-openai-" + strings.Map(func(r rune) rune {
			if r == '/' || r == os.PathSeparator || r == ':' {
				return '_'
			}
			return r
		}, model)
	case strings.HasPrefix(e, "gguf:"):
		emb, err := NewEmbedder(dataDir, cfg, engine)
		if err != nil {
			return nil, err
		}
		opts.Embedder = emb.Document
		dir = memory.DirName + "-gguf-" + strings.TrimSuffix(filepath.Base(GGUFEmbedderPath(dataDir, e)), ".gguf")
	default:
		return nil, fmt.Errorf("memory_embedder = %q: want hash, sidecar, openai:MODEL or gguf:PATH", e)
	}
	return memory.Open(filepath.Join(dataDir, dir), opts)
}
