package main

import (
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/sidecar/llamacpp"
)

// sidecarLoader loads GGUF models with llama.cpp in process: two sequences
// of app.SidecarContext tokens each, which bounds the key/value cache.
var sidecarLoader = llamacpp.Loader(llamacpp.Options{ContextSize: app.SidecarContext, Parallel: 2, Embeddings: true})

// embedLoader loads the embedding GGUF of memory_embedder = "gguf:PATH":
// four texts at a time, each at most 512 tokens (what Embed keeps of a
// text); it refuses a model that does not embed.
var embedLoader = llamacpp.Loader(llamacpp.Options{ContextSize: 512, Parallel: 4, EmbeddingModel: true})
