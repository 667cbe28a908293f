// Package ggufgen writes tiny GGUF models for tests, benchmarks and
// .ci/smoke: seeded random F32 weights with real shapes, the llama
// architecture with a small SentencePiece vocabulary with byte tokens, or
// the bert and nomic-bert embedding architectures with a small WordPiece
// vocabulary and a pooling type; and corrupt ones. Package gguf reads
// them (and every other GGUF file). The package has no cgo.
package ggufgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kwsdev/kws/sidecar/gguf"
)

// The architectures Config.Architecture can name: llama.cpp's names for
// them, which are general.architecture and the prefix of their metadata.
const (
	// ArchLlama is a causal generation model (llama, the default).
	ArchLlama = "llama"
	// ArchQwen3 is llama with RMS norms of the queries and keys; llama.cpp
	// reads a pooling type for it, which makes it a decoder embedding
	// model (Qwen3-Embedding pools the last token).
	ArchQwen3 = "qwen3"
	// ArchBERT is the encoder of the bge and MiniLM embedding models:
	// learned position embeddings, biases everywhere, a GELU
	// feed-forward.
	ArchBERT = "bert"
	// ArchNomicBERT is nomic-embed's encoder: rotary positions, one fused
	// query/key/value matrix, a gated SiLU feed-forward, no biases.
	ArchNomicBERT = "nomic-bert"
)

// Config shapes a generated model; zero fields take the defaults noted.
type Config struct {
	// Seed seeds the weights (default 1); the same Config gives the same
	// file.
	Seed uint64
	// Architecture is ArchLlama (the default), ArchQwen3, ArchBERT or
	// ArchNomicBERT. The BERT architectures get a WordPiece vocabulary
	// (tokenizer.ggml.model "bert") and are embedding models: llama.cpp
	// runs them as encoders and pools their output as Pooling says.
	Architecture string
	// Pooling is written as <arch>.pooling_type for the BERT
	// architectures (PoolingNone leaves bert's out, as llama.cpp then
	// takes none), and for qwen3 when it is not PoolingNone; llama has
	// none.
	Pooling gguf.Pooling
	// Name is general.name (default "kws-tiny").
	Name string
	// ContextLength is the training context, <arch>.context_length (2048;
	// 512 for bert, the length of its position embeddings).
	ContextLength int
	// Embedding is the embedding length (64).
	Embedding int
	// Blocks is the number of transformer blocks (2).
	Blocks int
	// FeedForward is the feed-forward length (128).
	FeedForward int
	// Heads is the number of attention heads (4).
	Heads int
	// HeadsKV is the number of key/value heads (Heads); fewer gives
	// grouped-query attention.
	HeadsKV int
	// ChatTemplate is written as tokenizer.chat_template when not empty;
	// ChatML is one.
	ChatTemplate string
	// EOS is the end-of-sequence token id (EOSID). Tests point it at a
	// token the model generates to make generation end there.
	EOS int
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Name == "" {
		c.Name = "kws-tiny"
	}
	if c.Architecture == "" {
		c.Architecture = ArchLlama
	}
	if c.Architecture == ArchBERT {
		def(&c.ContextLength, 512)
	}
	def(&c.ContextLength, 2048)
	def(&c.Embedding, 64)
	def(&c.Blocks, 2)
	def(&c.FeedForward, 128)
	def(&c.Heads, 4)
	def(&c.HeadsKV, c.Heads)
	def(&c.EOS, EOSID)
	return c
}

// tensor is one F32 tensor to write; dims[0] is the row length.
type tensor struct {
	name string
	dims []uint64
	data []float32
}

// weights draws a model's seeded weights.
type weights struct {
	rng *rand.Rand
	e   uint64
}

// weights starts drawing c's weights from its seed.
func (c Config) weights() *weights {
	return &weights{rng: rand.New(rand.NewPCG(c.Seed, 0x6b7773)), e: uint64(c.Embedding)}
}

// random is a matrix uniform with unit variance of each output at
// initialisation.
func (w *weights) random(name string, dims ...uint64) tensor {
	t := tensor{name: name, dims: dims, data: make([]float32, dims[0]*dims[1])}
	scale := math.Sqrt(3 / float64(dims[0]))
	for i := range t.data {
		t.data[i] = float32((2*w.rng.Float64() - 1) * scale)
	}
	return t
}

// bias is a vector of n small values, so that biases matter without
// swamping the products they are added to.
func (w *weights) bias(name string, n uint64) tensor {
	t := tensor{name: name, dims: []uint64{n}, data: make([]float32, n)}
	for i := range t.data {
		t.data[i] = float32(0.1 * (2*w.rng.Float64() - 1))
	}
	return t
}

// ones is a norm's weight: the embedding width of 1s.
func (w *weights) ones(name string) tensor {
	return w.onesOf(name, w.e)
}

// onesOf is a norm's weight of n 1s.
func (w *weights) onesOf(name string, n uint64) tensor {
	t := tensor{name: name, dims: []uint64{n}, data: make([]float32, n)}
	for i := range t.data {
		t.data[i] = 1
	}
	return t
}

// zeros is a norm's bias.
func (w *weights) zeros(name string) tensor {
	return tensor{name: name, dims: []uint64{w.e}, data: make([]float32, w.e)}
}

// tensors returns the model's weights: normal weights at 1, the others
// uniform with unit variance of each output at initialisation.
func (c Config) tensors(nVocab int) []tensor {
	if c.Architecture != ArchLlama && c.Architecture != ArchQwen3 {
		return c.bertTensors(nVocab)
	}
	w := c.weights()
	random, ones := w.random, w.ones
	e, ff, hd := uint64(c.Embedding), uint64(c.FeedForward), uint64(c.Embedding/c.Heads)
	kvDim := hd * uint64(c.HeadsKV)
	ts := []tensor{random("token_embd.weight", e, uint64(nVocab))}
	for i := range c.Blocks {
		b := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			ones(b+"attn_norm.weight"),
			random(b+"attn_q.weight", e, e),
			random(b+"attn_k.weight", e, kvDim),
			random(b+"attn_v.weight", e, kvDim),
			random(b+"attn_output.weight", e, e),
		)
		if c.Architecture == ArchQwen3 {
			ts = append(ts, w.onesOf(b+"attn_q_norm.weight", hd), w.onesOf(b+"attn_k_norm.weight", hd))
		}
		ts = append(ts,
			ones(b+"ffn_norm.weight"),
			random(b+"ffn_gate.weight", e, ff),
			random(b+"ffn_up.weight", e, ff),
			random(b+"ffn_down.weight", ff, e),
		)
	}
	return append(ts, ones("output_norm.weight"), random("output.weight", e, uint64(nVocab)))
}

// ChatML is a ChatML chat template in Jinja, for Config.ChatTemplate. Its
// markers are control tokens of the vocabulary.
const ChatML = "{% for message in messages %}" +
	"{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
	"{% endfor %}" +
	"{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"

// Token ids of the special tokens every generated vocabulary starts with.
const (
	UnknownID = 0
	BOSID     = 1
	EOSID     = 2
)

// llama.cpp's token types (llama_token_type).
const (
	tokenNormal  = 1
	tokenUnknown = 2
	tokenControl = 3
	tokenByte    = 6
)

// spaceMark is SentencePiece's word boundary, which stands for a space.
const spaceMark = "▁"

// words become whole tokens, with every prefix a token too so that the
// SentencePiece merges can reach them.
var words = strings.Fields(`the of and to in is it you that he was for on are with as his they be at
	one have this from or had by hot word but what some we can out other were all there when up use your
	how said an each she which do their time if will way about many then them write would like so these
	her long make thing see him two has look more day could go come did number sound no most people my
	over know water than call first who may down side been now find hello world model token file test
	code memory user agent tool answer summary route direct yes ok json true false null`)

// vocabulary returns the tokens, scores and token types of the generated
// SentencePiece vocabulary: <unk>, <s>, </s>, the 256 byte tokens, the
// ChatML markers, then normal pieces (the word boundary, characters,
// boundary-prefixed letters and the words above with their prefixes)
// scored so that earlier pieces merge first.
func vocabulary() (tokens []string, scores []float32, types []int32) {
	add := func(tok string, typ int32) {
		tokens = append(tokens, tok)
		scores = append(scores, 0)
		types = append(types, typ)
	}
	add("<unk>", tokenUnknown)
	add("<s>", tokenControl)
	add("</s>", tokenControl)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), tokenByte)
	}
	add("<|im_start|>", tokenControl)
	add("<|im_end|>", tokenControl)

	seen := map[string]bool{}
	var pieces []string
	piece := func(p string) {
		if !seen[p] {
			seen[p] = true
			pieces = append(pieces, p)
		}
	}
	piece(spaceMark)
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?:;'\"-()/_=+*#@&%<>[]{}" {
		piece(string(c))
	}
	for c := 'a'; c <= 'z'; c++ {
		piece(spaceMark + string(c))
	}
	for _, w := range words {
		for i := 2; i <= len(w); i++ {
			piece(spaceMark + w[:i])
		}
	}
	for i, p := range pieces {
		tokens = append(tokens, p)
		scores = append(scores, -float32(i))
		types = append(types, tokenNormal)
	}
	return tokens, scores, types
}
