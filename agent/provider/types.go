// Package provider talks to any OpenAI-compatible chat completions API
// (OpenAI, OpenRouter, Ollama, llama-server, LM Studio, vLLM) with
// streaming, native tool calls, retries and usage accounting.
package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Message is one chat message sent to or received from the model.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec describes one tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion request.
type Request struct {
	Model     string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
}

// Usage is the provider-reported token usage of one call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is the prompt prefix the provider served from its
	// cache (OpenAI's usage.prompt_tokens_details.cached_tokens).
	CachedTokens int `json:"cached_tokens"`
	// CacheReported says the provider reported CachedTokens (zero
	// included); without it the cached prefix is unknown.
	CacheReported bool `json:"cache_reported,omitempty"`
}

// Response is the complete answer of one call.
type Response struct {
	Content      string
	ToolCalls    []ToolCall
	Usage        Usage
	FinishReason string
	// Attempts counts the HTTP attempts the call took (1 without retries).
	Attempts int
}

// Delta is one streamed piece of text. A retry after a cut stream starts
// over, announced by a Delta with Restart set.
type Delta struct {
	Text    string
	Restart bool
	// Retry, when set, says that an attempt failed and the client waits
	// to try again; the delta carries no text.
	Retry *Retry
}

// Retry is a failed attempt the client retries.
type Retry struct {
	// Attempt is the attempt about to start (2 for the first retry), of
	// at most Max.
	Attempt, Max int
	// Wait is how long the client waits first; Reason why the last
	// attempt failed (safe to print).
	Wait   time.Duration
	Reason string
}

// String is the retry as kws shows it: "retrying 2/5 in 4s: HTTP 500 …".
func (r Retry) String() string {
	return fmt.Sprintf("retrying %d/%d in %s: %s", r.Attempt, r.Max, r.Wait.Round(time.Second), r.Reason)
}

// Client is an OpenAI-compatible chat model.
type Client interface {
	// Chat streams one completion, calling onDelta (which may be nil) for
	// every text piece, and returns the whole answer.
	Chat(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
}

// Documented errors.
var (
	// ErrContextOverflow means the prompt did not fit the model's window.
	ErrContextOverflow = errors.New("provider: prompt exceeds the model's context window")
	// ErrUnauthorized means the API key was missing or rejected.
	ErrUnauthorized = errors.New("provider: API key missing or rejected")
	// ErrModelNotFound means the server does not serve the model.
	ErrModelNotFound = errors.New("provider: model not found")
	// ErrUnreachable means the server could not be reached.
	ErrUnreachable = errors.New("provider: server unreachable")
)
