package ggufgen

import (
	"fmt"
	"strings"
)

// Pooling is llama.cpp's pooling type (enum llama_pooling_type), the value
// of <arch>.pooling_type: how an embedding model turns the states of a
// sequence's tokens into one vector.
type Pooling uint32

// The pooling types.
const (
	// PoolingNone gives one state per token; no sequence embedding.
	PoolingNone Pooling = iota
	// PoolingMean averages the states of every token (MiniLM,
	// nomic-embed).
	PoolingMean
	// PoolingCLS takes the state of the first token, [CLS] (bge).
	PoolingCLS
	// PoolingLast takes the state of the last token (decoder embedding
	// models such as Qwen3-Embedding).
	PoolingLast
	// PoolingRank is a reranker's score rather than an embedding.
	PoolingRank
)

// String names the pooling type as llama.cpp's tools do.
func (p Pooling) String() string {
	switch p {
	case PoolingNone:
		return "none"
	case PoolingMean:
		return "mean"
	case PoolingCLS:
		return "cls"
	case PoolingLast:
		return "last"
	case PoolingRank:
		return "rank"
	}
	return fmt.Sprintf("pooling(%d)", uint32(p))
}

// Pooling returns the model's <arch>.pooling_type, and false when the file
// has none (a generation model, or a bert model llama.cpp runs without
// pooling) or has one of another type.
func (f *File) Pooling() (Pooling, bool) {
	v, ok := f.Get(f.String("general.architecture") + ".pooling_type")
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case uint32:
		return Pooling(n), true
	case int32:
		return Pooling(n), n >= 0
	case uint8:
		return Pooling(n), true
	case int8:
		return Pooling(n), n >= 0
	case uint16:
		return Pooling(n), true
	case int16:
		return Pooling(n), n >= 0
	case uint64:
		return Pooling(n), n <= 1<<31
	case int64:
		return Pooling(n), n >= 0 && n <= 1<<31
	}
	return 0, false
}

// encoders are the embedding architectures llama.cpp runs as encoders,
// without a key/value cache (llama_model::create_memory): they embed but
// cannot generate, with or without a pooling type.
var encoders = map[string]bool{
	ArchBERT: true, ArchNomicBERT: true, "nomic-bert-moe": true, "jina-bert-v2": true,
	"jina-bert-v3": true, "neo-bert": true, "gemma-embedding": true,
}

// EmbeddingModel says, from the header, whether the file is an embedding
// model: it names a pooling type, or its architecture is one of
// llama.cpp's embedding encoders (bert, nomic-bert…).
func (f *File) EmbeddingModel() bool {
	_, pools := f.Pooling()
	return pools || encoders[f.String("general.architecture")]
}

// Token ids of the special tokens of the generated WordPiece vocabulary.
const (
	PadID = iota
	UnknownWordID
	CLSID
	SepID
	MaskID
)

// wordPieceVocabulary returns the tokens and token types of the generated
// WordPiece vocabulary, written the way llama.cpp's converter writes
// BERT's: [PAD], [UNK], [CLS], [SEP], [MASK], then word-initial pieces
// marked with the word boundary (every character and the words above) and
// continuation pieces bare (every character and a few suffixes).
// llama.cpp's WPM tokenizer lower-cases and splits punctuation off, so
// there are no capitals and punctuation is word-initial only.
func wordPieceVocabulary() (tokens []string, types []int32) {
	for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		tokens = append(tokens, s)
		types = append(types, tokenControl)
	}
	seen := map[string]bool{}
	piece := func(p string) {
		if !seen[p] {
			seen[p] = true
			tokens = append(tokens, p)
			types = append(types, tokenNormal)
		}
	}
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	for _, c := range chars + ".,!?:;'\"-()/_=+*#@&%<>[]{}" {
		piece(spaceMark + string(c))
	}
	for _, c := range chars {
		piece(string(c))
	}
	for _, w := range words {
		piece(spaceMark + w)
	}
	for _, s := range strings.Fields("s es ed ing er ly ion tion ment ness able") {
		piece(s)
	}
	return tokens, types
}

// encodeBERT lays out a BERT-architecture embedding model.
func encodeBERT(c Config) ([]byte, error) {
	if c.Architecture != ArchBERT && c.Architecture != ArchNomicBERT {
		return nil, fmt.Errorf("ggufgen: unknown architecture %q (want %s, %s, %s or %s)", c.Architecture, ArchLlama, ArchQwen3, ArchBERT, ArchNomicBERT)
	}
	if c.HeadsKV != c.Heads {
		return nil, fmt.Errorf("ggufgen: %s has no grouped-query attention (%d heads, %d for keys and values)", c.Architecture, c.Heads, c.HeadsKV)
	}
	tokens, types := wordPieceVocabulary()
	a := c.Architecture
	kv := append(c.commonKV(),
		KV{a + ".attention.layer_norm_epsilon", float32(1e-12)},
		KV{a + ".attention.causal", false},
	)
	if a == ArchNomicBERT || c.Pooling != PoolingNone {
		kv = append(kv, KV{a + ".pooling_type", uint32(c.Pooling)})
	}
	if a == ArchNomicBERT {
		kv = append(kv, KV{a + ".rope.freq_base", float32(1000)})
	}
	kv = append(kv,
		KV{"tokenizer.ggml.model", "bert"},
		KV{"tokenizer.ggml.tokens", tokens},
		KV{"tokenizer.ggml.token_type", types},
		KV{"tokenizer.ggml.token_type_count", uint32(2)},
		KV{"tokenizer.ggml.bos_token_id", uint32(CLSID)},
		KV{"tokenizer.ggml.seperator_token_id", uint32(SepID)},
		KV{"tokenizer.ggml.unknown_token_id", uint32(UnknownWordID)},
		KV{"tokenizer.ggml.padding_token_id", uint32(PadID)},
		KV{"tokenizer.ggml.mask_token_id", uint32(MaskID)},
	)
	return encode(kv, c.tensors(len(tokens)))
}

// bertTensors returns the weights of the BERT architectures with the names
// and shapes llama.cpp loads (llama-model.cpp, LLM_ARCH_BERT and
// LLM_ARCH_NOMIC_BERT): bert has learned positions and biases, nomic-bert
// rotary positions, a fused query/key/value matrix and a gated
// feed-forward without biases.
func (c Config) bertTensors(nVocab int) []tensor {
	w := c.weights()
	e, ff := uint64(c.Embedding), uint64(c.FeedForward)
	bert := c.Architecture == ArchBERT
	ts := []tensor{
		w.random("token_embd.weight", e, uint64(nVocab)),
		w.random("token_types.weight", e, 2),
	}
	if bert {
		ts = append(ts, w.random("position_embd.weight", e, uint64(c.ContextLength)))
	}
	ts = append(ts, w.ones("token_embd_norm.weight"), w.zeros("token_embd_norm.bias"))
	for i := range c.Blocks {
		b := fmt.Sprintf("blk.%d.", i)
		if bert {
			ts = append(ts,
				w.random(b+"attn_q.weight", e, e), w.bias(b+"attn_q.bias", e),
				w.random(b+"attn_k.weight", e, e), w.bias(b+"attn_k.bias", e),
				w.random(b+"attn_v.weight", e, e), w.bias(b+"attn_v.bias", e),
				w.random(b+"attn_output.weight", e, e), w.bias(b+"attn_output.bias", e),
			)
		} else {
			ts = append(ts,
				w.random(b+"attn_qkv.weight", e, 3*e),
				w.random(b+"attn_output.weight", e, e),
			)
		}
		ts = append(ts, w.ones(b+"attn_output_norm.weight"), w.zeros(b+"attn_output_norm.bias"))
		if bert {
			ts = append(ts,
				w.random(b+"ffn_up.weight", e, ff), w.bias(b+"ffn_up.bias", ff),
				w.random(b+"ffn_down.weight", ff, e), w.bias(b+"ffn_down.bias", e),
			)
		} else {
			ts = append(ts,
				w.random(b+"ffn_up.weight", e, ff),
				w.random(b+"ffn_gate.weight", e, ff),
				w.random(b+"ffn_down.weight", ff, e),
			)
		}
		ts = append(ts, w.ones(b+"layer_output_norm.weight"), w.zeros(b+"layer_output_norm.bias"))
	}
	return ts
}
