package sidecar

import (
	"context"
	"sync/atomic"
)

// Switch is an Engine that forwards to the engine set last: the heuristic
// engine while the model loads, then the model's. It lets kws start at once
// and upgrade when loading finishes.
type Switch struct {
	cur atomic.Pointer[Engine]
}

// NewSwitch returns a Switch forwarding to e.
func NewSwitch(e Engine) *Switch {
	s := &Switch{}
	s.Set(e)
	return s
}

// Set makes e the engine answering from now on.
func (s *Switch) Set(e Engine) { s.cur.Store(&e) }

// Current returns the engine answering now.
func (s *Switch) Current() Engine { return *s.cur.Load() }

// Route forwards to the current engine.
func (s *Switch) Route(ctx context.Context, turn string) (Route, error) {
	return s.Current().Route(ctx, turn)
}

// Summarize forwards to the current engine.
func (s *Switch) Summarize(ctx context.Context, kind, text string) (string, error) {
	return s.Current().Summarize(ctx, kind, text)
}

// ExtractMemories forwards to the current engine.
func (s *Switch) ExtractMemories(ctx context.Context, text string) ([]Candidate, error) {
	return s.Current().ExtractMemories(ctx, text)
}

// Critique forwards to the current engine.
func (s *Switch) Critique(ctx context.Context, tool, preview string) (string, error) {
	return s.Current().Critique(ctx, tool, preview)
}

// Embed forwards to the current engine.
func (s *Switch) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return s.Current().Embed(ctx, texts)
}

// Info describes the current engine.
func (s *Switch) Info() Info { return s.Current().Info() }
