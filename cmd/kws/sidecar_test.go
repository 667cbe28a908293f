package main

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

// tinyModel writes the generated test model into dataDir/models.
func tinyModel(t *testing.T, dataDir string) string {
	t.Helper()
	dir := filepath.Join(dataDir, "models")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kws-tiny.gguf")
	if err := ggufgen.Write(path, ggufgen.Config{ChatTemplate: ggufgen.ChatML}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSidecarInfoAndBench(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	out, err := run(t, dir, nil, "sidecar", "info")
	if err != nil || !strings.Contains(out, "heuristic") || !strings.Contains(out, "no GGUF model") {
		t.Fatalf("info without a model: %q %v", out, err)
	}
	tinyModel(t, dir)
	out, err = run(t, dir, nil, "sidecar", "info")
	for _, want := range []string{"engine  kws-tiny", "general.architecture", "llama", "chat_template", "from the model", "loading kws-tiny.gguf… done\n"} {
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("info lacks %q: %q %v", want, out, err)
		}
	}
	if strings.Contains(out, "\r") {
		t.Errorf("a loading bar was redrawn on output that is not a terminal: %q", out)
	}
	out, err = run(t, dir, nil, "sidecar", "bench", "--tokens", "16")
	if err != nil || !strings.Contains(out, "batched gen tok/s") || strings.Count(out, "×") != 3 {
		t.Fatalf("bench: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sidecar.jsonl")); err != nil {
		t.Fatalf("no telemetry: %v", err)
	}
}

func TestSidecarCorruptModelIsAClearError(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.gguf")
	if err := ggufgen.WriteCorrupt(bad, ggufgen.Config{}, ggufgen.Truncated); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "--sidecar-model", bad, "sidecar", "info")
	if err == nil || !strings.Contains(err.Error(), "cannot load the model") {
		t.Fatalf("a truncated model: %q %v", out, err)
	}
}

func TestProgressLineEndsWhenLoadingStopsShort(t *testing.T) {
	var b strings.Builder
	progress, end := progressBar(&b, "m.gguf")
	progress(0.3)
	progress(0.6)
	end()
	end()
	if b.String() != "loading m.gguf…\n" {
		t.Errorf("a load that stopped at 60%%: %q", b.String())
	}
	b.Reset()
	progress, end = progressBar(&b, "m.gguf")
	progress(0.5)
	progress(1)
	end()
	if b.String() != "loading m.gguf… done\n" {
		t.Errorf("a finished load: %q", b.String())
	}
}

// TestMemoryGGUFEmbedder runs memory on an embedding GGUF in DATA/models
// through llama.cpp: memories are stored with its vectors in their own
// store, and a memory's own text finds it first.
func TestMemoryGGUFEmbedder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	setting := func(v string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(home, "kws"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "kws", "config.toml"), []byte("memory_embedder = \""+v+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, ws := t.TempDir(), t.TempDir()
	models := filepath.Join(dir, "models")
	if err := os.MkdirAll(models, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ggufgen.Write(filepath.Join(models, "bge.gguf"), ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingCLS}); err != nil {
		t.Fatal(err)
	}
	setting("gguf:bge.gguf")
	mem := func(args ...string) string {
		t.Helper()
		out, err := run(t, dir, nil, append([]string{"memory", "--workspace", ws}, args...)...)
		if err != nil {
			t.Fatalf("memory %v: %q %v", args, out, err)
		}
		return out
	}
	facts := []string{"use pnpm instead of npm", "the API server listens on port 8080", "tests run with go test -race"}
	ids := map[string]string{}
	for _, f := range facts {
		out := mem("add", f)
		ids[f] = strings.Fields(out)[len(strings.Fields(out))-1]
	}
	if out := mem("--json", "ls"); out == "" || strings.Count(out, `"embedder":"gguf:bge.gguf:`) != strings.Count(out, "\n") {
		t.Fatalf("the memories do not record the gguf embedder: %s", out)
	}
	for _, f := range facts {
		first := strings.SplitN(mem("search", "-k", "1", f), "\n", 3)
		if len(first) < 2 || !strings.Contains(first[1], ids[f]) {
			t.Errorf("search %q: %q, want %s first", f, first, ids[f])
		}
	}

	setting("gguf:nope.gguf")
	out, err := run(t, dir, nil, "memory", "--workspace", ws, "ls")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(models, "nope.gguf")) || !strings.Contains(err.Error(), "memory_embedder") {
		t.Fatalf("a missing embedding model: %q %v", out, err)
	}
}
