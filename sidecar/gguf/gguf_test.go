package gguf_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kwsdev/kws/sidecar/gguf"
	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []ggufgen.Corruption{ggufgen.Truncated, ggufgen.HeaderCut, ggufgen.BadMagic, ggufgen.RandomBytes, ggufgen.Empty} {
		path := filepath.Join(dir, c.String()+".gguf")
		if err := ggufgen.WriteCorrupt(path, ggufgen.Config{}, c); err != nil {
			t.Fatal(err)
		}
		if _, err := gguf.Read(path); !errors.Is(err, gguf.ErrFormat) {
			t.Errorf("%s: %v, want gguf.ErrFormat", c, err)
		}
	}
	path := filepath.Join(dir, "arch.gguf")
	if err := ggufgen.WriteCorrupt(path, ggufgen.Config{}, ggufgen.UnknownArchitecture); err != nil {
		t.Fatal(err)
	}
	if f, err := gguf.Read(path); err != nil || f.String("general.architecture") != "lxxma" {
		t.Errorf("unknown architecture: %v", err)
	}
	if _, err := gguf.Read(filepath.Join(dir, "missing.gguf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestMutations damages the header, each of its first 256 bytes and then
// every 97th: gguf.Parse must never panic, and every error must be gguf.ErrFormat.
func TestMutations(t *testing.T) {
	data, err := ggufgen.Encode(ggufgen.Config{Blocks: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < int(f.DataOffset); i++ {
		if i >= 256 && i%97 != 0 {
			continue
		}
		for _, b := range []byte{0x00, 0xff, 0x7f} {
			m := bytes.Clone(data)
			m[i] = b
			if _, err := gguf.Parse(bytes.NewReader(m), int64(len(m))); err != nil && !errors.Is(err, gguf.ErrFormat) {
				t.Fatalf("byte %d = %#x: %v", i, b, err)
			}
		}
	}
}

func TestEmbeddingModel(t *testing.T) {
	for _, tc := range []struct {
		cfg  ggufgen.Config
		want bool
	}{
		{ggufgen.Config{}, false},
		{ggufgen.Config{Architecture: ggufgen.ArchQwen3}, false},
		{ggufgen.Config{Architecture: ggufgen.ArchQwen3, Pooling: gguf.PoolingLast}, true},
		{ggufgen.Config{Architecture: ggufgen.ArchBERT}, true},
		{ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingMean}, true},
		{ggufgen.Config{Architecture: ggufgen.ArchNomicBERT, Pooling: gguf.PoolingMean}, true},
	} {
		f := encodeParse(t, tc.cfg)
		if got := f.EmbeddingModel(); got != tc.want {
			t.Errorf("%s pooling %v: embedding model %v, want %v", tc.cfg.Architecture, tc.cfg.Pooling, got, tc.want)
		}
	}
}

// encodeParse encodes cfg and parses the bytes back.
func encodeParse(t *testing.T, cfg ggufgen.Config) *gguf.File {
	t.Helper()
	data, err := ggufgen.Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
