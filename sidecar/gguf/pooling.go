package gguf

import "fmt"

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
	"bert": true, "nomic-bert": true, "nomic-bert-moe": true, "jina-bert-v2": true,
	"jina-bert-v3": true, "neo-bert": true, "gemma-embedding": true,
}

// EmbeddingModel says, from the header, whether the file is an embedding
// model: it names a pooling type, or its architecture is one of
// llama.cpp's embedding encoders (bert, nomic-bert…).
func (f *File) EmbeddingModel() bool {
	_, pools := f.Pooling()
	return pools || encoders[f.String("general.architecture")]
}
