package agent

import (
	"context"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
)

// compact replaces older messages by an extractive summary rebuilt from
// the raw transcript and returns the new request. It keeps the newest
// messages and the current user turn whole (the summary may cover steps
// of the turn after it), and it must shrink the request or not run: a
// summary that would not make the request smaller is dropped. When even
// the kept messages do not fit, the overflow is recorded with its size.
// After either, until compactKeep more messages can join the summary,
// only a request over the window or a provider's overflow error compacts
// again: each compaction breaks the prompt cache, so one that gains a few
// tokens on every call costs more than it saves.
func (a *Agent) compact(ctx context.Context, reason string, before wirePrompt) (wirePrompt, error) {
	info := CompactionInfo{Reason: reason, BeforeTokens: before.sent}
	end := a.compactEnd()
	// Until compactKeep more messages can join the summary, only a
	// request that would not fit the window is compacted.
	gated := reason != "overflow" && end < a.compactGate && before.sent <= a.room()
	if end <= a.compactFrom || gated {
		if reason == "overflow" || end <= a.compactFrom && before.sent > a.budget() {
			a.skipCompaction(info, before)
		}
		return before, nil
	}
	a.precompact(ctx, "auto")
	saved := a.saved()
	ids, err := vaultIDs(a.cfg.Vault, a.history[:end], a.cfg.Diet.MinBlockChars, a.cfg.Name)
	if err != nil {
		return wirePrompt{}, err
	}
	a.summary = a.withGist(summarize(a.history[:end], ids, a.changed, a.openTodos()), end)
	a.compactFrom = end
	if err := a.rebuildDiet(); err != nil {
		a.restore(saved)
		return wirePrompt{}, err
	}
	after, err := a.build()
	if err != nil {
		a.restore(saved)
		return wirePrompt{}, err
	}
	if after.sent >= before.sent {
		a.restore(saved)
		a.compactGate = end + compactKeep
		info.AfterTokens = after.sent
		a.skipCompaction(info, before)
		return before, nil
	}
	a.totals.Compactions++
	a.compactGate = end + compactKeep
	a.lastPrompt = 0
	info.Covered = a.compactFrom
	info.SummaryChars = len(a.summary)
	info.AfterTokens = after.sent
	if b := a.budget(); b > 0 && info.AfterTokens > b {
		info.Overflow = info.AfterTokens - b
	}
	a.emit(Event{Type: EvCompaction, Compaction: &info})
	a.event("compaction", info)
	return after, nil
}

// compactState is what a compaction changes, to undo one that fails or
// would not shrink the request.
type compactState struct {
	summary     string
	compactFrom int
	dietS       *diet.State
	meta        []provider.Message
	wire        []wireInfo
	decoderDup  int
}

// saved is the state a compaction would change, for restore.
func (a *Agent) saved() compactState {
	return compactState{a.summary, a.compactFrom, a.dietS, a.meta, a.wire, a.decoderDup}
}

// restore undoes a compaction, back to s.
func (a *Agent) restore(s compactState) {
	a.summary, a.compactFrom, a.dietS, a.meta, a.wire, a.decoderDup = s.summary, s.compactFrom, s.dietS, s.meta, s.wire, s.decoderDup
}

// compactEnd is where a summary made now would end: before the newest
// compactKeep messages, never between a tool call and its results.
func (a *Agent) compactEnd() int {
	end := len(a.history) - compactKeep
	for end > 0 && end < len(a.history) && a.history[end].Role == "tool" {
		end--
	}
	return end
}

// skipCompaction records in the session a compaction that did not run,
// because the summary would not shrink the request or, on an overflow,
// nothing new could be summarized, with the overflow when the request
// stays over budget. It publishes no event: nothing was compacted.
func (a *Agent) skipCompaction(info CompactionInfo, before wirePrompt) {
	info.Skipped = true
	info.Covered = a.compactFrom
	if b := a.budget(); b > 0 && before.sent > b {
		info.Overflow = before.sent - b
	}
	a.event("compaction", info)
	// An overflow is shown once a turn: the pane and kws run say that the
	// prompt goes over the budget as it is.
	if info.Overflow > 0 && a.overflowTurn != a.turnStart+1 {
		a.overflowTurn = a.turnStart + 1
		a.emit(Event{Type: EvCompaction, Compaction: &info})
	}
}

func (a *Agent) openTodos() []string {
	var out []string
	for _, it := range a.env.Todo.Items() {
		if !it.Done {
			out = append(out, it.Text)
		}
	}
	return out
}
