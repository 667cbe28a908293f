package main

import (
	"github.com/kwsdev/kws/sidecar/llamacpp"
)

// sidecarContext is the context window of each sidecar sequence: an agent
// turn in local-only mode carries the system prompt and every tool in the
// text protocol, several thousand tokens before the conversation starts.
const sidecarContext = 16384

// sidecarLoader loads GGUF models with llama.cpp in process: two sequences
// of sidecarContext tokens each, which bounds the key/value cache.
var sidecarLoader = llamacpp.Loader(llamacpp.Options{ContextSize: sidecarContext, Parallel: 2, Embeddings: true})
