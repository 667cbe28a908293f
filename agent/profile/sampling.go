package profile

import (
	"fmt"
	"math"
)

// Sampling is how a model picks its tokens: the temperature and top_p of
// the OpenAI-compatible API. A nil field is unset: the request leaves it
// out and the server uses its default.
type Sampling struct {
	// Temperature is between 0 (greedy) and 2.
	Temperature *float64 `json:"temperature,omitempty" toml:"temperature"`
	// TopP is the nucleus share, above 0 and at most 1.
	TopP *float64 `json:"top_p,omitempty" toml:"top_p"`
}

// With returns s with every field that over sets replaced by over's.
func (s Sampling) With(over Sampling) Sampling {
	if over.Temperature != nil {
		s.Temperature = over.Temperature
	}
	if over.TopP != nil {
		s.TopP = over.TopP
	}
	return s
}

// Validate reports a temperature outside [0, 2] or a top_p outside (0, 1].
func (s Sampling) Validate() error {
	if t := s.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		return fmt.Errorf("temperature %v must be between 0 and 2", *t)
	}
	if p := s.TopP; p != nil && (math.IsNaN(*p) || *p <= 0 || *p > 1) {
		return fmt.Errorf("top_p %v must be above 0 and at most 1", *p)
	}
	return nil
}
