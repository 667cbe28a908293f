package profile

import "time"

// Usual API roots of the providers kws knows.
const (
	// OpenAIBaseURL is OpenAI's API root.
	OpenAIBaseURL = "https://api.openai.com/v1"
	// OpenRouterBaseURL is OpenRouter's API root.
	OpenRouterBaseURL = "https://openrouter.ai/api/v1"
	// OllamaBaseURL is a local Ollama server's OpenAI-compatible root.
	OllamaBaseURL = "http://localhost:11434/v1"
)

// Pattern ids with special handling in Resolve.
const (
	// FallbackID is the id of the profile used for unknown models.
	FallbackID = "fallback"
	// vendorWildcard matches "vendor/model" ids, OpenRouter's naming.
	vendorWildcard = "*/*"
)

func seconds(n int) Duration { return Duration(time.Duration(n) * time.Second) }

// openAIModels are OpenAI's current chat models. Each also gets a "-*"
// pattern for dated snapshots and an "openai/…" twin served by OpenRouter.
var openAIModels = []Profile{
	{ID: "gpt-4.1", ContextWindow: 1047576, CompletionReserve: 32768, Timeout: seconds(120)},
	{ID: "gpt-4.1-mini", ContextWindow: 1047576, CompletionReserve: 32768, Timeout: seconds(120)},
	{ID: "gpt-4o", ContextWindow: 128000, CompletionReserve: 16384, Timeout: seconds(120)},
	{ID: "gpt-4o-mini", ContextWindow: 128000, CompletionReserve: 16384, Timeout: seconds(120)},
	// Reasoning models spend answer tokens on thinking and take longer.
	{ID: "o3", ContextWindow: 200000, CompletionReserve: 32768, Timeout: seconds(300)},
	{ID: "o4-mini", ContextWindow: 200000, CompletionReserve: 32768, Timeout: seconds(300)},
	// GPT-5 takes at most 272k input tokens of its 400k window.
	{ID: "gpt-5", ContextWindow: 400000, CompletionReserve: 128000, Timeout: seconds(300)},
	{ID: "gpt-5-mini", ContextWindow: 400000, CompletionReserve: 128000, Timeout: seconds(300)},
}

// openRouterModels are served through OpenRouter under "vendor/model" ids.
var openRouterModels = []Profile{
	{ID: "anthropic/claude-sonnet-4", ContextWindow: 200000, CompletionReserve: 16384, Timeout: seconds(180)},
	{ID: "anthropic/*", ContextWindow: 200000, CompletionReserve: 16384, Timeout: seconds(180)},
	{ID: "google/gemini-2.5-pro", ContextWindow: 1048576, CompletionReserve: 32768, Timeout: seconds(300)},
	{ID: "google/gemini-*", ContextWindow: 1048576, CompletionReserve: 16384, Timeout: seconds(180)},
	{ID: "openrouter/*", ContextWindow: 128000, CompletionReserve: 8192, Timeout: seconds(180)},
	{ID: vendorWildcard, ContextWindow: 128000, CompletionReserve: 8192, Timeout: seconds(180)},
}

// ollamaModels are local models. The window is what kws plans for; the
// Ollama server must be started with at least that context length
// (OLLAMA_CONTEXT_LENGTH), or it silently truncates the prompt. Models whose
// native tool calls Ollama parses reliably use the native envelope.
var ollamaModels = []Profile{
	{ID: "qwen2.5-coder", ContextWindow: 32768, CompletionReserve: 4096, Envelope: EnvelopeText},
	{ID: "qwen3", ContextWindow: 32768, CompletionReserve: 8192, ToolCalls: true, Envelope: EnvelopeNative},
	{ID: "llama3.1", ContextWindow: 32768, CompletionReserve: 4096, ToolCalls: true, Envelope: EnvelopeNative},
	{ID: "llama3.2", ContextWindow: 32768, CompletionReserve: 4096, ToolCalls: true, Envelope: EnvelopeNative},
	{ID: "llama3.3", ContextWindow: 32768, CompletionReserve: 4096, ToolCalls: true, Envelope: EnvelopeNative},
	{ID: "deepseek-coder-v2", ContextWindow: 32768, CompletionReserve: 4096, Envelope: EnvelopeText},
	{ID: "ollama/*", ContextWindow: 32768, CompletionReserve: 4096, Envelope: EnvelopeText},
}

// builtins is the full built-in table, built once.
var builtins = buildBuiltins()

func buildBuiltins() []Profile {
	var out []Profile
	for _, p := range openAIModels {
		p.Provider, p.BaseURL, p.ToolCalls, p.Envelope = "openai", OpenAIBaseURL, true, EnvelopeNative
		snapshot := p
		snapshot.ID = p.ID + "-*"
		routed := p
		routed.ID = "openai/" + p.ID
		routed.Provider, routed.BaseURL = "openrouter", OpenRouterBaseURL
		out = append(out, p, snapshot, routed)
	}
	for _, p := range openRouterModels {
		p.Provider, p.BaseURL, p.ToolCalls, p.Envelope = "openrouter", OpenRouterBaseURL, true, EnvelopeNative
		out = append(out, p)
	}
	for _, p := range ollamaModels {
		p.Provider, p.BaseURL, p.Timeout = "ollama", OllamaBaseURL, seconds(300)
		out = append(out, p)
	}
	return out
}

// Builtins returns a copy of the built-in profiles.
func Builtins() []Profile {
	return append([]Profile(nil), builtins...)
}

// Fallback is the conservative profile for models kws does not know: a 32k
// window with 4k kept for the answer, native tools and a two-minute
// timeout.
func Fallback() Profile {
	return Profile{
		ID:                FallbackID,
		ContextWindow:     32768,
		CompletionReserve: 4096,
		Timeout:           seconds(120),
		ToolCalls:         true,
		Envelope:          EnvelopeNative,
	}
}
