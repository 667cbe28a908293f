package app

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
)

// OpenMemory opens the data dir's memory store, DATA/memory, with the
// embedder cfg names (NewEmbedder); engine embeds for "sidecar", loader
// loads a "gguf:PATH" model. Every
// memory records the embedder of its vector, so one store serves every
// embedder: after a switch the store re-embeds its memories in the
// background. The stores older versions kept per embedder
// (DATA/memory-sidecar, DATA/memory-openai-MODEL) are merged into it on
// the first open.
func OpenMemory(dataDir string, cfg config.Config, engine sidecar.Engine, loader sidecar.Loader) (*memory.Store, error) {
	emb, err := NewEmbedder(dataDir, cfg, engine, loader)
	if err != nil {
		return nil, err
	}
	// Candidates under the promotion threshold wait in the memory pane's
	// approval queue.
	opts := memory.Options{Sensitive: diet.IsSensitive, Review: true, Embedder: emb.Document, QueryEmbedder: emb.Query,
		EmbedderID: emb.ID, Migrate: legacyMemoryDirs(dataDir)}
	return memory.Open(filepath.Join(dataDir, memory.DirName), opts)
}

// legacyMemoryDirs are the stores older versions kept per embedder in
// dataDir, not merged yet, with the name their unrecorded vectors get: no
// embedder's, so they are re-embedded.
func legacyMemoryDirs(dataDir string) []memory.Legacy {
	var out []memory.Legacy
	entries, _ := os.ReadDir(dataDir) // an unreadable data dir fails Open itself
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.Contains(name, memory.MigratedSuffix) {
			continue
		}
		if name == memory.DirName+"-sidecar" || strings.HasPrefix(name, memory.DirName+"-openai-") {
			out = append(out, memory.Legacy{Dir: filepath.Join(dataDir, name),
				Embedder: "unrecorded:" + strings.TrimPrefix(name, memory.DirName+"-")})
		}
	}
	return out
}
