package main

import (
	"github.com/kwsdev/kws/sidecar/llamacpp"
)

// sidecarLoader loads GGUF models with llama.cpp in process.
var sidecarLoader = llamacpp.Loader(llamacpp.Options{})
