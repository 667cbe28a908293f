// Package sidecar is the one local model of a kws process, shared by every
// agent: small tasks (routing a turn, richer summaries, memory candidates,
// a risk note before approval, embeddings) answered by an in-process GGUF
// model when one is present and by a deterministic heuristic engine when
// not, so nothing depends on a model being there. The GGUF runtime lives in
// sidecar/llamacpp, the only package that imports llama.cpp.
package sidecar

import (
	"context"
	"errors"
)

// Engine answers the sidecar's tasks. Implementations are safe for
// concurrent use.
type Engine interface {
	// Route says whether a user turn wants a direct answer or tool work.
	Route(ctx context.Context, turn string) (Route, error)
	// Summarize writes a short summary of a block of the given kind. The
	// diet's deterministic summary stays; this one is a richer hint.
	Summarize(ctx context.Context, kind, text string) (string, error)
	// ExtractMemories proposes memory candidates from a user turn or tool
	// activity.
	ExtractMemories(ctx context.Context, text string) ([]Candidate, error)
	// Critique writes a one-paragraph risk note on a command or diff the
	// user is asked to approve.
	Critique(ctx context.Context, tool, preview string) (string, error)
	// Embed returns one vector per text.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Info describes the engine.
	Info() Info
}

// Route is the answer of Engine.Route.
type Route struct {
	// Direct is true when the turn can be answered without tools.
	Direct bool `json:"direct"`
	// Confidence is between 0 and 1.
	Confidence float64 `json:"confidence"`
	// Reason says why, in a few words.
	Reason string `json:"reason,omitempty"`
}

// Candidate is a proposed memory.
type Candidate struct {
	// Text is the memory in one sentence.
	Text string `json:"text"`
	// Kind is remember, preference, decision, correction, rename or path.
	Kind string `json:"kind"`
	// Confidence is between 0 and 1; promotion compares it with a threshold.
	Confidence float64 `json:"confidence"`
}

// Info describes an engine.
type Info struct {
	// Name is "heuristic" or the model's name.
	Name string `json:"name"`
	// Path is the GGUF file, empty for the heuristic engine.
	Path string `json:"path,omitempty"`
	// Heuristic is true for the deterministic engine.
	Heuristic bool `json:"heuristic"`
	// Dims is the embedding size.
	Dims int `json:"dims"`
	// Meta holds the model's GGUF metadata worth showing (architecture,
	// parameters, context length, chat template presence).
	Meta map[string]string `json:"meta,omitempty"`
}

// Documented errors.
var (
	// ErrNoModel is returned when no GGUF model is found or configured.
	ErrNoModel = errors.New("sidecar: no GGUF model (give --sidecar-model PATH, set sidecar_model in config.toml, or put a .gguf in DATA/models)")
	// ErrBadModel wraps failures to load a GGUF file.
	ErrBadModel = errors.New("sidecar: cannot load the model")
)
