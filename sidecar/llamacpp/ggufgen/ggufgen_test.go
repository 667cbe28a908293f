package ggufgen

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/kwsdev/kws/sidecar/gguf"
)

func TestRoundTrip(t *testing.T) {
	cfg := Config{HeadsKV: 2, ChatTemplate: ChatML}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := Write(path, cfg); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != gguf.Version || f.Alignment != gguf.DefaultAlignment || f.DataOffset%gguf.DefaultAlignment != 0 {
		t.Fatalf("version %d, alignment %d, data at %d", f.Version, f.Alignment, f.DataOffset)
	}
	tokens, scores, types := vocabulary()
	want := map[string]any{
		"general.architecture":                   "llama",
		"llama.embedding_length":                 uint32(64),
		"llama.attention.head_count_kv":          uint32(2),
		"llama.rope.dimension_count":             uint32(16),
		"llama.vocab_size":                       uint32(len(tokens)),
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.scores":                  scores,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.eos_token_id":            uint32(EOSID),
		"tokenizer.chat_template":                ChatML,
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
	}
	for k, v := range want {
		if got, _ := f.Get(k); !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if len(tokens) < 500 || tokens[BOSID] != "<s>" || tokens[3+0x41] != "<0x41>" {
		t.Errorf("vocabulary of %d tokens: %q", len(tokens), tokens[:4])
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.withDefaults()
	gen := c.tensors(len(tokens))
	if len(f.Tensors) != len(gen) || len(gen) != 3+9*c.Blocks {
		t.Fatalf("%d tensors read, %d generated", len(f.Tensors), len(gen))
	}
	for i, ti := range f.Tensors {
		g := gen[i]
		if ti.Name != g.name || !reflect.DeepEqual(ti.Dims, g.dims) || ti.Type != gguf.TensorF32 || ti.Offset%gguf.DefaultAlignment != 0 {
			t.Fatalf("tensor %d: read %+v, generated %s %v", i, ti, g.name, g.dims)
		}
		at := f.DataOffset + int64(ti.Offset)
		for j, w := range g.data {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[at+4*int64(j):])); got != w {
				t.Fatalf("%s[%d] = %v, want %v", ti.Name, j, got, w)
			}
		}
	}
	if wq := f.Tensors[2]; wq.Name != "blk.0.attn_q.weight" || wq.Size() != 64*64*4 {
		t.Errorf("tensor 2 is %s of %d bytes", wq.Name, wq.Size())
	}
	if k := f.Tensors[3]; k.Name != "blk.0.attn_k.weight" || k.Dims[1] != 32 {
		t.Errorf("grouped-query keys: %s %v", k.Name, k.Dims)
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := Encode(Config{})
	b, _ := Encode(Config{Seed: 1})
	c, _ := Encode(Config{Seed: 2})
	if !bytes.Equal(a, b) || bytes.Equal(a, c) || len(a) != len(c) {
		t.Fatal("the same seed must give the same file and another seed other weights")
	}
	if _, err := Encode(Config{Heads: 3}); err == nil {
		t.Error("3 heads cannot divide 64")
	}
	if _, err := Encode(Config{EOS: 1 << 20}); err == nil {
		t.Error("EOS outside the vocabulary")
	}
}

func TestBERT(t *testing.T) {
	for _, tc := range []struct {
		cfg      Config
		tensors  int
		pooling  gguf.Pooling
		hasPool  bool
		position bool
	}{
		{Config{Architecture: ArchBERT, Pooling: gguf.PoolingCLS}, 5 + 16*2, gguf.PoolingCLS, true, true},
		{Config{Architecture: ArchBERT}, 5 + 16*2, gguf.PoolingNone, false, true},
		{Config{Architecture: ArchNomicBERT, Pooling: gguf.PoolingMean, Blocks: 3}, 4 + 9*3, gguf.PoolingMean, true, false},
		{Config{Architecture: ArchQwen3, Pooling: gguf.PoolingLast}, 3 + 11*2, gguf.PoolingLast, true, false},
		{Config{}, 3 + 9*2, gguf.PoolingNone, false, false},
	} {
		f := encodeParse(t, tc.cfg)
		arch := tc.cfg.withDefaults().Architecture
		if got := f.String("general.architecture"); got != arch {
			t.Errorf("architecture %q, want %q", got, arch)
		}
		if p, ok := f.Pooling(); p != tc.pooling || ok != tc.hasPool {
			t.Errorf("%s: pooling %v %v, want %v %v", arch, p, ok, tc.pooling, tc.hasPool)
		}
		if len(f.Tensors) != tc.tensors {
			t.Errorf("%s: %d tensors, want %d", arch, len(f.Tensors), tc.tensors)
		}
		hasPos := false
		for _, ti := range f.Tensors {
			hasPos = hasPos || ti.Name == "position_embd.weight"
		}
		if hasPos != tc.position {
			t.Errorf("%s: position embeddings %v, want %v", arch, hasPos, tc.position)
		}
		if arch == ArchLlama || arch == ArchQwen3 {
			continue
		}
		tokens, _ := f.Get("tokenizer.ggml.tokens")
		toks := tokens.([]string)
		if f.String("tokenizer.ggml.model") != "bert" || toks[CLSID] != "[CLS]" || toks[SepID] != "[SEP]" || !slices.Contains(toks, spaceMark+"memory") {
			t.Errorf("%s: WordPiece vocabulary %q…", arch, toks[:6])
		}
		if causal, _ := f.Get(arch + ".attention.causal"); causal != false {
			t.Errorf("%s: causal %v", arch, causal)
		}
	}
	if _, err := Encode(Config{Architecture: "gpt9"}); err == nil {
		t.Error("an unknown architecture must be refused")
	}
	if _, err := Encode(Config{Pooling: gguf.PoolingMean}); err == nil {
		t.Error("llama.cpp reads no pooling type for llama")
	}
	if _, err := Encode(Config{Architecture: ArchBERT, HeadsKV: 2}); err == nil {
		t.Error("bert has no grouped-query attention")
	}
}

// encodeParse encodes cfg and parses the bytes back.
func encodeParse(t *testing.T, cfg Config) *gguf.File {
	t.Helper()
	data, err := Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
