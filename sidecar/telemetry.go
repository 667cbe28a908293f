package sidecar

import (
	"encoding/json"
	"os"
	"sync"
	"time"
)

// Record is one line of DATA/sidecar.jsonl: one model call, its sizes and
// speed. Prompts and answers themselves are never written.
type Record struct {
	Time             time.Time `json:"time"`
	Task             string    `json:"task"`
	Model            string    `json:"model"`
	PromptChars      int       `json:"prompt_chars"`
	ResponseChars    int       `json:"response_chars"`
	PromptTokens     int       `json:"prompt_tokens,omitempty"`
	CompletionTokens int       `json:"completion_tokens,omitempty"`
	LatencyMs        float64   `json:"latency_ms"`
	TokensPerSecond  float64   `json:"tokens_per_s,omitempty"`
	Error            string    `json:"error,omitempty"`
}

// Telemetry appends records to a JSON-lines file. A nil *Telemetry drops
// them. It is safe for concurrent use.
type Telemetry struct {
	mu sync.Mutex
	f  *os.File
}

// OpenTelemetry opens (or creates) the file for appending.
func OpenTelemetry(path string) (*Telemetry, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return &Telemetry{f: f}, nil
}

// Write appends one record; a failing write is dropped (telemetry never
// fails a task).
func (t *Telemetry) Write(r Record) {
	if t == nil {
		return
	}
	line, err := json.Marshal(r)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.f.Write(append(line, '\n'))
}

// Close closes the file.
func (t *Telemetry) Close() error {
	if t == nil {
		return nil
	}
	return t.f.Close()
}
