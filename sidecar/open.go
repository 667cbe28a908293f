package sidecar

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Locate returns the GGUF file to load: path when given (the
// --sidecar-model flag or sidecar_model in config.toml), else the first
// .gguf file in dataDir/models by name that is not an embedding model
// (memory_embedder = "gguf:NAME" keeps those there too). A given embedding
// model is an error. It returns ErrNoModel when there is
// none, and an error naming the file when the given one is unusable.
func Locate(path, dataDir string) (string, error) {
	if path != "" {
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return "", fmt.Errorf("%w: %s: %v", ErrBadModel, path, err)
		case !st.Mode().IsRegular():
			return "", fmt.Errorf("%w: %s is not a regular file", ErrBadModel, path)
		case embeddingModel(path):
			return "", fmt.Errorf("%w: %s is an embedding model, which cannot generate (memory_embedder = \"gguf:%s\" embeds with it)", ErrBadModel, path, path)
		}
		return path, nil
	}
	dir := filepath.Join(dataDir, "models")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", ErrNoModel
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.EqualFold(filepath.Ext(e.Name()), ".gguf") && !embeddingModel(filepath.Join(dir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", ErrNoModel
	}
	sort.Strings(names)
	return filepath.Join(dir, names[0]), nil
}

// embeddingModel says whether the GGUF file at path is an embedding model,
// which cannot generate; a file that is no valid GGUF is left for the
// load to report.
func embeddingModel(path string) bool {
	f, err := gguf.Read(path)
	return err == nil && f.EmbeddingModel()
}

// Loader loads a GGUF file, reporting progress; sidecar/llamacpp provides
// one.
type Loader func(path string, progress LoadProgress) (Model, error)

// Open locates and loads the sidecar model and returns its engine. When
// there is no model, or it cannot be loaded, it returns the heuristic
// engine with the reason as the error, so kws keeps working without one.
func Open(path, dataDir string, load Loader, progress LoadProgress, tel *Telemetry, log *slog.Logger) (Engine, error) {
	file, err := Locate(path, dataDir)
	if err != nil {
		return Heuristic{}, err
	}
	if load == nil {
		return Heuristic{}, fmt.Errorf("%w: this kws was built without the GGUF runtime", ErrBadModel)
	}
	m, err := load(file, progress)
	if err != nil {
		if !errors.Is(err, ErrBadModel) {
			err = fmt.Errorf("%w: %s: %v", ErrBadModel, file, err)
		}
		return Heuristic{}, err
	}
	return NewLocal(m, file, tel, log), nil
}
