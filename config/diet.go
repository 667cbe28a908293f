package config

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Compaction models: who writes the summary that replaces older turns when
// a prompt outgrows the compaction threshold.
const (
	// CompactExtractive is the default: a deterministic summary extracted
	// from the raw transcript, citing vault ids; no model is called.
	CompactExtractive = "extractive"
	// CompactSidecar adds a gist written by the local sidecar model to the
	// extractive summary, marked as a hint.
	CompactSidecar = "sidecar"
)

// Diet holds the context diet's settings a user may change: a [diet] table
// in config.toml, a role's front matter, or kws run's flags, each set field
// replacing the one before (the diet mode's preset, then the
// configuration, then the role, then the session's flags). Nil or empty
// fields are unset.
type Diet struct {
	// TriggerTokens is the prompt size below which everything is sent
	// exact.
	TriggerTokens *int `toml:"trigger_tokens" yaml:"trigger_tokens" json:"trigger_tokens,omitempty"`
	// Recent is how many of the newest messages are always sent exact.
	Recent *int `toml:"recent" yaml:"recent" json:"recent,omitempty"`
	// MinBlockChars is the size under which a message is never moved to
	// the vault.
	MinBlockChars *int `toml:"min_block_chars" yaml:"min_block_chars" json:"min_block_chars,omitempty"`
	// CompactAt is the share of (context window − completion reserve) a
	// dieted prompt may fill before older turns are summarized.
	CompactAt *float64 `toml:"compact_at" yaml:"compact_at" json:"compact_at,omitempty"`
	// CompactModel is who writes that summary: CompactExtractive or
	// CompactSidecar.
	CompactModel string `toml:"compact_model" yaml:"compact_model" json:"compact_model,omitempty"`
}

// dietKeys are the keys of the [diet] table, for error messages.
var dietKeys = []string{"trigger_tokens", "recent", "min_block_chars", "compact_at", "compact_model"}

// With returns d with every field set in over replacing d's.
func (d Diet) With(over Diet) Diet {
	if over.TriggerTokens != nil {
		d.TriggerTokens = over.TriggerTokens
	}
	if over.Recent != nil {
		d.Recent = over.Recent
	}
	if over.MinBlockChars != nil {
		d.MinBlockChars = over.MinBlockChars
	}
	if over.CompactAt != nil {
		d.CompactAt = over.CompactAt
	}
	if over.CompactModel != "" {
		d.CompactModel = over.CompactModel
	}
	return d
}

// Validate explains each setting that is out of range, naming the key and
// what it wants.
func (d Diet) Validate() error {
	var errs []error
	if v := d.TriggerTokens; v != nil && *v < 0 {
		errs = append(errs, fmt.Errorf("diet.trigger_tokens = %d: want 0 or more prompt tokens (0 diets from the first call)", *v))
	}
	if v := d.Recent; v != nil && *v < 0 {
		errs = append(errs, fmt.Errorf("diet.recent = %d: want 0 or more messages", *v))
	}
	if v := d.MinBlockChars; v != nil && *v < 1 {
		errs = append(errs, fmt.Errorf("diet.min_block_chars = %d: want 1 or more characters", *v))
	}
	if v := d.CompactAt; v != nil && (math.IsNaN(*v) || *v <= 0 || *v > 1) {
		errs = append(errs, fmt.Errorf("diet.compact_at = %v: want a share of the window above 0 and at most 1, such as 0.85", *v))
	}
	switch strings.TrimSpace(d.CompactModel) {
	case "", CompactExtractive, CompactSidecar:
	default:
		errs = append(errs, fmt.Errorf("diet.compact_model = %q: want %q or %q", d.CompactModel, CompactExtractive, CompactSidecar))
	}
	return errors.Join(errs...)
}

// IsZero reports whether no field is set.
func (d Diet) IsZero() bool { return d == Diet{} }
