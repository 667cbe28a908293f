package agent

import (
	"github.com/kwsdev/kws/agent/diet"
)

// compact replaces older turns by an extractive summary rebuilt from the
// raw transcript and returns the new prompt. It keeps the newest messages
// and never cuts into the current user turn; when even that does not fit,
// the overflow is recorded with its size.
func (a *Agent) compact(reason string, before int) (diet.Result, error) {
	end := len(a.history) - compactKeep
	if end > a.turnStart {
		end = a.turnStart
	}
	for end > 0 && end < len(a.history) && a.history[end].Role == "tool" {
		end--
	}
	info := CompactionInfo{Reason: reason, BeforeTokens: before}
	if end > a.compactFrom {
		ids, err := vaultIDs(a.cfg.Vault, a.history[:end], a.cfg.Diet.MinBlockChars, a.cfg.Name)
		if err != nil {
			return diet.Result{}, err
		}
		a.summary = a.withGist(summarize(a.history[:end], ids, a.changed, a.openTodos()), end)
		a.compactFrom = end
		if err := a.rebuildDiet(); err != nil {
			return diet.Result{}, err
		}
		a.totals.Compactions++
	}
	res, err := a.dietS.Build()
	if err != nil {
		return diet.Result{}, err
	}
	info.Covered = a.compactFrom
	info.SummaryChars = len(a.summary)
	info.AfterTokens = res.Event.SentTokens
	if b := a.budget(); b > 0 && info.AfterTokens > b {
		info.Overflow = info.AfterTokens - b
	}
	a.emit(Event{Type: EvCompaction, Compaction: &info})
	a.event("compaction", info)
	return res, nil
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
