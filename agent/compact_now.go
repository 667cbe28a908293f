package agent

import (
	"context"
	"fmt"

	"github.com/kwsdev/kws/agent/diet"
)

// CompactReport says what a compaction the user asked for (/compact) did.
type CompactReport struct {
	// Before and After are the next prompt's tokens, tool schemas
	// included, before and after; After is Before when nothing changed.
	Before int `json:"before_tokens"`
	After  int `json:"after_tokens"`
	// Covered is how many messages of the transcript the summary covers.
	Covered int `json:"covered"`
	// Compacted reports whether the prompt changed; Reason says why not.
	Compacted bool   `json:"compacted"`
	Reason    string `json:"reason,omitempty"`
}

// String is the report as one line for the user.
func (r CompactReport) String() string {
	if !r.Compacted {
		return fmt.Sprintf("not compacted: %s; the prompt stays %s tokens", r.Reason, thousands(r.Before))
	}
	return fmt.Sprintf("compacted: %s → %s tokens (%d earlier messages summarized, their bulky ones kept exactly in the vault)",
		thousands(r.Before), thousands(r.After), r.Covered)
}

// Compact compacts the conversation now, between turns, as the window
// filling up would: the messages before the newest ones are replaced by
// an extractive summary that cites their vault ids. A compaction that
// would not shrink the prompt is undone, and the report says so. It must
// not run while a turn runs (one goroutine owns the agent).
func (a *Agent) Compact() (CompactReport, error) {
	res, err := a.dietS.Build()
	if err != nil {
		return CompactReport{}, err
	}
	rep := CompactReport{Before: a.view(res, a.meta).Total, Covered: a.compactFrom}
	rep.After = rep.Before
	end := a.compactEnd()
	if end <= a.compactFrom {
		rep.Reason = fmt.Sprintf("nothing old enough to summarize (the newest %d messages stay whole)", compactKeep)
		return rep, nil
	}
	// A manual compaction runs between turns: no turn's context bounds
	// its hooks, their own timeouts do.
	a.precompact(context.Background(), "manual")
	undo := a.saved()
	after, err := a.summarizeBefore(end)
	if err == nil {
		rep.After = a.view(after, a.meta).Total
	}
	if err == nil && rep.After >= rep.Before {
		rep.Reason = fmt.Sprintf("a summary would not shrink it (%s → %s tokens)", thousands(rep.Before), thousands(rep.After))
		rep.After = rep.Before
	}
	if err != nil || rep.Reason != "" {
		a.restore(undo)
		return rep, err
	}
	a.totals.Compactions++
	rep.Covered, rep.Compacted = a.compactFrom, true
	// The event carries the report's figures, so /compact shows one
	// before/after wherever it is printed.
	info := CompactionInfo{Reason: "manual", Covered: a.compactFrom, SummaryChars: len(a.summary),
		BeforeTokens: rep.Before, AfterTokens: rep.After}
	a.emit(Event{Type: EvCompaction, Compaction: &info})
	a.event("compaction", info)
	return rep, nil
}

// summarizeBefore replaces the history before end by its summary (the
// bulky messages kept exactly in the vault) and returns the new prompt.
func (a *Agent) summarizeBefore(end int) (diet.Result, error) {
	ids, err := vaultIDs(a.cfg.Vault, a.history[:end], a.cfg.Diet.MinBlockChars, a.cfg.Name)
	if err != nil {
		return diet.Result{}, err
	}
	a.summary = a.withGist(summarize(a.history[:end], ids, a.changed, a.openTodos()), end)
	a.compactFrom = end
	if err := a.rebuildDiet(); err != nil {
		return diet.Result{}, err
	}
	return a.dietS.Build()
}
