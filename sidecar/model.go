package sidecar

import "context"

// Model is what a GGUF runtime offers the sidecar: completion and
// embedding on one loaded model. sidecar/llamacpp implements it with one
// worker goroutine owning the llama.cpp context; concurrent calls are
// queued and decoded together as separate sequences.
type Model interface {
	// Complete continues prompt (already formatted with the chat template)
	// and returns the generated text. It stops at MaxTokens, at an end of
	// generation token or at one of Stop, and ends early with ctx's error
	// when ctx is done.
	Complete(ctx context.Context, prompt string, opts CompleteOptions) (Completion, error)
	// Embed returns the model's embedding of text, L2-normalised.
	Embed(ctx context.Context, text string) ([]float32, error)
	// Tokenize returns the token ids of text.
	Tokenize(text string) ([]int, error)
	// Metadata returns the GGUF key/value metadata as strings (arrays are
	// summarised), including tokenizer.chat_template when present.
	Metadata() map[string]string
	// Close releases the model; pending calls fail.
	Close() error
}

// CompleteOptions tune one completion.
type CompleteOptions struct {
	// MaxTokens caps the generated tokens; 0 means 256.
	MaxTokens int
	// Temperature 0 is greedy decoding (deterministic).
	Temperature float32
	// Seed seeds sampling when Temperature > 0.
	Seed uint32
	// Stop ends generation when the text ends with one of these.
	Stop []string
}

// Completion is the result of Complete with its measurements.
type Completion struct {
	Text             string
	PromptTokens     int
	CompletionTokens int
	// PromptSeconds and GenSeconds are the time spent on the prompt and on
	// generation.
	PromptSeconds float64
	GenSeconds    float64
}

// LoadProgress reports model loading, from 0 to 1, for a progress bar.
type LoadProgress func(fraction float32)
