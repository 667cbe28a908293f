// Command ggufgen writes a tiny generated GGUF model (random weights, the
// shapes llama.cpp loads): a chat model by default, an embedding model with
// -arch bert. .ci/run smoke-tests the release build with one, and a user
// can try the sidecar path without downloading a model:
//
//	go run ./sidecar/llamacpp/ggufgen/cmd/ggufgen ~/.local/share/kws/models/tiny.gguf
package main

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"flag"
	"fmt"
	"os"

	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

func main() {
	arch := flag.String("arch", ggufgen.ArchLlama, "architecture: llama, qwen3, bert or nomic-bert")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: ggufgen [-arch ARCH] PATH")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	cfg := ggufgen.Config{Architecture: *arch}
	switch *arch {
	case ggufgen.ArchLlama, ggufgen.ArchQwen3:
		cfg.ChatTemplate = ggufgen.ChatML
	case ggufgen.ArchBERT, ggufgen.ArchNomicBERT:
		cfg.Pooling = gguf.PoolingMean
	default:
		fmt.Fprintf(os.Stderr, "ggufgen: unknown architecture %q\n", *arch)
		os.Exit(2)
	}
	if err := ggufgen.Write(flag.Arg(0), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "ggufgen:", err)
		os.Exit(1)
	}
}
