package main

import (
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/sidecar/llamacpp"
)

// sidecarLoader loads GGUF models with llama.cpp in process: two sequences
// of app.SidecarContext tokens each, which bounds the key/value cache.
var sidecarLoader = llamacpp.Loader(llamacpp.Options{ContextSize: app.SidecarContext, Parallel: 2, Embeddings: true})
