// Package diet keeps long agent prompts small without losing evidence.
//
// Below a trigger size a prompt is sent exact. Above it, older messages of
// at least MinBlockChars move into the vault and a compact, accountable
// reference takes their place (<ctx …/>, or <il:seen …/> for an exact
// repeat); with Fold, each epoch also folds the old messages into runs,
// one ref per run. The newest Recent messages, the pinned system prompt
// and the current user turn are never touched. The diet is deterministic and
// monotone: once a message is externalized it stays so, and new
// externalizations happen in epochs, so consecutive prompts share a long
// exact prefix and provider prompt caching keeps working.
package diet

import (
	"fmt"
	"sort"
	"strings"
)

// Params are the diet's knobs. Use Preset for a named mode.
type Params struct {
	Mode          string // preset name the params came from
	TriggerTokens int    // below this many prompt tokens everything is exact
	Recent        int    // newest messages always sent exact
	MinBlockChars int    // smaller messages are never externalized
	Seen          bool   // exact repeats become <il:seen/>
	Lossless      bool   // once active, new bulky messages may go as <il:v1>
	Verify        bool   // read every block back before its ref is sent
	AutoRestore   bool   // relevance-gated excerpts for retrieval intent
	RestoreChars  int    // the excerpt's byte budget
	IngestBytes   int    // a tool output above this is compacted at once
	IngestLines   int    // ... or above this many lines
	RefDivisor    int    // a ref's summary gets block bytes / RefDivisor
	Spans         bool   // once active, long repeats of earlier blocks go as <il:seg/>
	Fold          bool   // each epoch folds the old messages into runs, one ref each
}

// Modes lists the preset names from most careful to most thrifty.
var Modes = []string{"safe", "verified", "aggressive", "ultra"}

// DefaultMode is the preset used when none is named.
const DefaultMode = "ultra"

var presets = map[string]Params{
	"safe": {TriggerTokens: 64000, Recent: 16, MinBlockChars: 2000, Seen: true,
		Verify: true, AutoRestore: true, RestoreChars: 2400, RefDivisor: 16, Fold: true},
	"verified": {TriggerTokens: 48000, Recent: 12, MinBlockChars: 1200, Seen: true,
		Verify: true, AutoRestore: true, RestoreChars: 1600, RefDivisor: 24, Fold: true},
	"aggressive": {TriggerTokens: 32000, Recent: 10, MinBlockChars: 800, Seen: true,
		Lossless: true, Spans: true, AutoRestore: true, RestoreChars: 1200, RefDivisor: 32, Fold: true},
	"ultra": {TriggerTokens: 24000, Recent: 8, MinBlockChars: 420, Seen: true,
		Lossless: true, Spans: true, AutoRestore: true, RestoreChars: 1200, RefDivisor: 40, Fold: true},
}

// Preset returns the named mode's parameters.
func Preset(mode string) (Params, error) {
	if mode == "" {
		mode = DefaultMode
	}
	p, ok := presets[strings.ToLower(mode)]
	if !ok {
		names := append([]string(nil), Modes...)
		sort.Strings(names)
		return Params{}, fmt.Errorf("diet: unknown mode %q (want one of %s)", mode, strings.Join(names, ", "))
	}
	p.Mode = strings.ToLower(mode)
	p.IngestBytes = 16 << 10
	p.IngestLines = 400
	return p, nil
}

// Defaults returns the default mode's parameters.
func Defaults() Params {
	p, _ := Preset(DefaultMode)
	return p
}

// Validate reports nonsensical parameters.
func (p Params) Validate() error {
	switch {
	case p.TriggerTokens < 0:
		return fmt.Errorf("diet: trigger tokens must be >= 0, got %d", p.TriggerTokens)
	case p.Recent < 0:
		return fmt.Errorf("diet: recent must be >= 0, got %d", p.Recent)
	case p.MinBlockChars < 1:
		return fmt.Errorf("diet: min block chars must be >= 1, got %d", p.MinBlockChars)
	case p.RefDivisor < 1:
		return fmt.Errorf("diet: ref divisor must be >= 1, got %d", p.RefDivisor)
	}
	return nil
}
