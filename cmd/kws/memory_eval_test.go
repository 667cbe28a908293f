package main

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/memory/recallset"
	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

// TestMemoryEval runs the recall benchmark on one conversation for BM25,
// the default store and a configured embedding GGUF, side by side.
func TestMemoryEval(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ggufgen.Write(filepath.Join(dir, "models", "bge.gguf"), ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingMean}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "kws"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "kws", "config.toml"), []byte("memory_embedder = \"gguf:bge.gguf\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "--json", "memory", "eval", "--split", "measure", "--conversations", "1")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	questions := len(recallset.Generate(recallset.Measure, recallset.Options{Conversations: 1}).Conversations[0].Questions)
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rep recallset.Report
		if err := json.Unmarshal([]byte(line), &rep); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		names = append(names, rep.Name)
		if rep.Split != recallset.Measure || rep.All.N != questions || rep.ByCategory["single"] == nil {
			t.Errorf("%s: %+v", rep.Name, rep)
		}
		if rep.Name == "bm25" && (rep.All.At10 == 0 || rep.All.At1 > rep.All.At5 || rep.All.At5 > rep.All.At10) {
			t.Errorf("bm25: %+v", rep.All)
		}
	}
	if len(names) != 3 || names[0] != "bm25" || names[1] != "default" || !strings.HasPrefix(names[2], "gguf:bge.gguf:") {
		t.Errorf("retrievers %q, want bm25, default and the gguf embedder", names)
	}
	if out, err := run(t, dir, nil, "memory", "eval", "--split", "all"); err == nil || !strings.Contains(out+err.Error(), "want tune, measure or both") {
		t.Errorf("--split all: %q %v", out, err)
	}
}
