package ggufgen

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/kwsdev/kws/sidecar/gguf"
)

// Write writes a GGUF v3 model shaped by cfg to path.
func Write(path string, cfg Config) error {
	data, err := Encode(cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// commonKV returns the metadata every architecture starts with: the
// model's name and layout, keyed by its architecture.
func (c Config) commonKV() []gguf.KV {
	a := c.Architecture
	return []gguf.KV{
		pair("general.architecture", a),
		pair("general.name", c.Name),
		pair("general.alignment", uint32(gguf.DefaultAlignment)),
		pair("general.file_type", uint32(0)),
		pair(a+".context_length", uint32(c.ContextLength)),
		pair(a+".embedding_length", uint32(c.Embedding)),
		pair(a+".block_count", uint32(c.Blocks)),
		pair(a+".feed_forward_length", uint32(c.FeedForward)),
		pair(a+".attention.head_count", uint32(c.Heads)),
	}
}

// Encode returns the bytes Write writes.
func Encode(cfg Config) ([]byte, error) {
	c := cfg.withDefaults()
	if c.Embedding%c.Heads != 0 || c.Heads%c.HeadsKV != 0 {
		return nil, fmt.Errorf("ggufgen: %d heads (%d for keys and values) do not divide an embedding of %d", c.Heads, c.HeadsKV, c.Embedding)
	}
	if c.Architecture != ArchLlama && c.Architecture != ArchQwen3 {
		return encodeBERT(c)
	}
	tokens, scores, types := vocabulary()
	if c.EOS < 0 || c.EOS >= len(tokens) {
		return nil, fmt.Errorf("ggufgen: EOS %d is not a token id (0..%d)", c.EOS, len(tokens)-1)
	}
	a := c.Architecture
	if a == ArchLlama && c.Pooling != gguf.PoolingNone {
		return nil, fmt.Errorf("ggufgen: llama.cpp reads no pooling type for %s; a pooled decoder is %s", ArchLlama, ArchQwen3)
	}
	kv := append(c.commonKV(),
		pair(a+".attention.head_count_kv", uint32(c.HeadsKV)),
		pair(a+".rope.dimension_count", uint32(c.Embedding/c.Heads)),
		pair(a+".rope.freq_base", float32(10000)),
		pair(a+".attention.layer_norm_rms_epsilon", float32(1e-5)),
		pair(a+".vocab_size", uint32(len(tokens))),
		pair("tokenizer.ggml.model", "llama"),
		pair("tokenizer.ggml.tokens", tokens),
		pair("tokenizer.ggml.scores", scores),
		pair("tokenizer.ggml.token_type", types),
		pair("tokenizer.ggml.bos_token_id", uint32(BOSID)),
		pair("tokenizer.ggml.eos_token_id", uint32(c.EOS)),
		pair("tokenizer.ggml.unknown_token_id", uint32(UnknownID)),
		pair("tokenizer.ggml.add_bos_token", true),
		pair("tokenizer.ggml.add_eos_token", false),
	)
	if c.ChatTemplate != "" {
		kv = append(kv, pair("tokenizer.chat_template", c.ChatTemplate))
	}
	if c.Pooling != gguf.PoolingNone {
		kv = append(kv, pair(a+".pooling_type", uint32(c.Pooling)))
	}
	return encode(kv, c.tensors(len(tokens)))
}

// encode lays out a GGUF v3 file: header, metadata, tensor infos, then the
// tensor data, each part aligned to DefaultAlignment.
func encode(kv []gguf.KV, ts []tensor) ([]byte, error) {
	buf := []byte(gguf.Magic)
	buf = le.AppendUint32(buf, gguf.Version)
	buf = le.AppendUint64(buf, uint64(len(ts)))
	buf = le.AppendUint64(buf, uint64(len(kv)))
	var err error
	for _, p := range kv {
		buf = appendString(buf, p.Key)
		if buf, err = encodeValue(buf, p.Value); err != nil {
			return nil, err
		}
	}
	var offset uint64
	for _, t := range ts {
		buf = appendString(buf, t.name)
		buf = le.AppendUint32(buf, uint32(len(t.dims)))
		for _, d := range t.dims {
			buf = le.AppendUint64(buf, d)
		}
		buf = le.AppendUint32(buf, gguf.TensorF32)
		buf = le.AppendUint64(buf, offset)
		offset += gguf.Pad(uint64(4*len(t.data)), gguf.DefaultAlignment)
	}
	for _, t := range ts {
		buf = append(buf, make([]byte, gguf.Pad(uint64(len(buf)), gguf.DefaultAlignment)-uint64(len(buf)))...)
		for _, f := range t.data {
			buf = le.AppendUint32(buf, math.Float32bits(f))
		}
	}
	return buf, nil
}

// Corruption names a way WriteCorrupt damages a model.
type Corruption int

// The corruptions WriteCorrupt knows.
const (
	// Truncated cuts the file in the middle of its tensor data.
	Truncated Corruption = iota
	// HeaderCut cuts the file 256 bytes in, inside its metadata.
	HeaderCut
	// BadMagic overwrites the magic.
	BadMagic
	// RandomBytes replaces the file with seeded random bytes of its size.
	RandomBytes
	// Empty writes an empty file.
	Empty
	// UnknownArchitecture keeps the file well formed but names an
	// architecture llama.cpp does not know, so the failure comes from
	// llama.cpp itself.
	UnknownArchitecture
)

// String names the corruption, for test names.
func (c Corruption) String() string {
	switch c {
	case Truncated:
		return "truncated"
	case HeaderCut:
		return "header-cut"
	case BadMagic:
		return "bad-magic"
	case RandomBytes:
		return "random-bytes"
	case Empty:
		return "empty"
	case UnknownArchitecture:
		return "unknown-architecture"
	}
	return fmt.Sprintf("corruption(%d)", int(c))
}

// WriteCorrupt writes the model cfg describes to path, damaged by c.
func WriteCorrupt(path string, cfg Config, c Corruption) error {
	data, err := Encode(cfg)
	if err != nil {
		return err
	}
	switch c {
	case Truncated:
		data = data[:len(data)*3/4]
	case HeaderCut:
		data = data[:256]
	case BadMagic:
		copy(data, "GGML")
	case RandomBytes:
		rng := rand.New(rand.NewPCG(cfg.Seed, 0xbad))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
	case Empty:
		data = nil
	case UnknownArchitecture:
		// general.architecture comes first; its value is the first
		// length-prefixed "llama".
		value := appendString(nil, "llama")
		data = bytes.Replace(data, value, appendString(nil, "lxxma"), 1)
	default:
		return fmt.Errorf("ggufgen: unknown corruption %d", int(c))
	}
	return os.WriteFile(path, data, 0o644)
}

// pair is one metadata pair.
func pair(key string, value any) gguf.KV { return gguf.KV{Key: key, Value: value} }
