// Package profile knows what each model can take: its context window, how
// much of it to keep for the answer, how long to wait for it and whether
// it calls tools natively.
package profile

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Tool-call envelopes: how tool calls travel between kws and the model.
const (
	// EnvelopeNative sends tools as the API's tools parameter.
	EnvelopeNative = "native"
	// EnvelopeText describes tools in the system message and parses fenced
	// tool blocks from the answer.
	EnvelopeText = "text"
)

// Profile describes one model or, when its ID holds a *, a family of
// models.
type Profile struct {
	// ID is the model id ("gpt-4o") or a pattern where * matches any run
	// of characters ("ollama/*", "anthropic/*").
	ID string `json:"id"`
	// Provider names who serves the model: openai, openrouter, ollama.
	Provider string `json:"provider"`
	// BaseURL is the provider's usual API root, for hints; the configured
	// base URL always wins.
	BaseURL string `json:"base_url,omitempty"`
	// ContextWindow is the model's window in tokens, prompt and answer
	// together.
	ContextWindow int `json:"context_window"`
	// CompletionReserve is the part of the window kept for the answer.
	CompletionReserve int `json:"completion_reserve"`
	// Timeout bounds one request to the model.
	Timeout Duration `json:"timeout"`
	// ToolCalls reports whether the model calls tools through the API.
	ToolCalls bool `json:"tool_calls"`
	// Envelope is EnvelopeNative or EnvelopeText.
	Envelope string `json:"envelope"`
	// Sampling holds the temperature and top_p sent with each request;
	// unset values are left out and the server decides.
	Sampling
}

// PromptBudget is the number of tokens the prompt may use: the window less
// the completion reserve, never below zero.
func (p Profile) PromptBudget() int {
	return max(0, p.ContextWindow-p.CompletionReserve)
}

// NativeTools reports whether tools should be sent natively.
func (p Profile) NativeTools() bool {
	return p.Envelope == EnvelopeNative
}

// validate checks the fields a user can get wrong.
func (p Profile) validate() error {
	switch {
	case strings.TrimSpace(p.ID) == "":
		return fmt.Errorf("a profile has no id")
	case p.ContextWindow < 0 || p.CompletionReserve < 0:
		return fmt.Errorf("profile %q: context_window and completion_reserve must not be negative", p.ID)
	case p.ContextWindow > 0 && p.CompletionReserve >= p.ContextWindow:
		return fmt.Errorf("profile %q: completion_reserve %d leaves no room in context_window %d",
			p.ID, p.CompletionReserve, p.ContextWindow)
	case p.Timeout < 0:
		return fmt.Errorf("profile %q: timeout must not be negative", p.ID)
	case p.Envelope != "" && p.Envelope != EnvelopeNative && p.Envelope != EnvelopeText:
		return fmt.Errorf("profile %q: envelope %q must be %q or %q", p.ID, p.Envelope, EnvelopeNative, EnvelopeText)
	}
	if err := p.Sampling.Validate(); err != nil {
		return fmt.Errorf("profile %q: %w", p.ID, err)
	}
	return nil
}

// Duration is a time.Duration written in JSON as a Go duration string such
// as "90s"; a bare number reads as seconds.
type Duration time.Duration

// Duration returns d as a time.Duration.
func (d Duration) Duration() time.Duration {
	return time.Duration(d)
}

// String formats whole seconds as "90s" and anything else the Go way.
func (d Duration) String() string {
	td := time.Duration(d)
	if td%time.Second == 0 {
		return strconv.FormatInt(int64(td/time.Second), 10) + "s"
	}
	return td.String()
}

// MarshalJSON writes d as a string such as "90s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// UnmarshalJSON reads "90s", "1m30s" or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration must be a string such as \"90s\" or a number of seconds, not %s", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}
