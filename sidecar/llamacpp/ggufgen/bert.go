package ggufgen

import (
	"fmt"
	"strings"

	"github.com/kwsdev/kws/sidecar/gguf"
)

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
		pair(a+".attention.layer_norm_epsilon", float32(1e-12)),
		pair(a+".attention.causal", false),
	)
	if a == ArchNomicBERT || c.Pooling != gguf.PoolingNone {
		kv = append(kv, pair(a+".pooling_type", uint32(c.Pooling)))
	}
	if a == ArchNomicBERT {
		kv = append(kv, pair(a+".rope.freq_base", float32(1000)))
	}
	kv = append(kv,
		pair("tokenizer.ggml.model", "bert"),
		pair("tokenizer.ggml.tokens", tokens),
		pair("tokenizer.ggml.token_type", types),
		pair("tokenizer.ggml.token_type_count", uint32(2)),
		pair("tokenizer.ggml.bos_token_id", uint32(CLSID)),
		pair("tokenizer.ggml.seperator_token_id", uint32(SepID)),
		pair("tokenizer.ggml.unknown_token_id", uint32(UnknownWordID)),
		pair("tokenizer.ggml.padding_token_id", uint32(PadID)),
		pair("tokenizer.ggml.mask_token_id", uint32(MaskID)),
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
