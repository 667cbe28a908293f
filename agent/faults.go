package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/vault"
)

// ErrFaultLimit ends a turn whose model keeps asking for vaulted context
// after the per-turn cap answered it no.
var ErrFaultLimit = errors.New("agent: the model kept paging in context past the per-turn limit")

// overCapTurns is how many refused page-fault rounds end a turn.
const overCapTurns = 3

// pageFault answers one request for vaulted context, within the turn's
// caps (the diet sends an answer whose bytes stand exact earlier in the
// prompt as a note saying where, not twice): past the fault cap or the
// injected-bytes budget the model is told to go on with what it has; an
// oversized block comes back as its head and tail, marked partial; a
// sensitive block passes sensitiveGate first.
func (a *Agent) pageFault(ctx context.Context, f diet.Fault) string {
	if f.Op == "get" {
		id, err := vault.NormalizeID(f.ID)
		if err != nil {
			return fmt.Sprintf("<ctx_error>%s</ctx_error>", diet.EscapeMarkup(err.Error()))
		}
		f.ID = id
	}
	a.emit(Event{Type: EvPageFault, Fault: &f})
	a.event("page_fault", f)
	if f.Op == "get" && a.dietS.StandsExact(f.ID) {
		// Already in front of the model: neither counted nor charged.
		return diet.Answer(a.cfg.Vault, nil, f)
	}
	if a.faults >= a.cfg.MaxPageFaults {
		a.overCap++
		return fmt.Sprintf("<ctx_error>page-fault limit of %d per turn reached; continue with what you have</ctx_error>", a.cfg.MaxPageFaults)
	}
	a.faults++
	a.totals.PageFaults++
	if f.Op == "get" {
		if refusal := a.sensitiveGate(ctx, f); refusal != "" {
			return refusal
		}
	}
	var search diet.Searcher = a.cfg.Vault
	if sv, ok := a.cfg.Vault.(scopedVault); ok {
		search = askerSearch{sv, a}
	}
	ans := diet.Answer(a.cfg.Vault, search, f)
	room := a.cfg.MaxInjectedChars - a.injected
	if len(ans) > room {
		ans = partialExact(f.ID, ans, room)
	}
	a.injected += len(ans)
	return ans
}

// partialExact cuts an answer to room bytes, keeping its head and tail and
// saying so, so the model never mistakes it for the whole block.
func partialExact(id, ans string, room int) string {
	note := fmt.Sprintf("\n[… kws: %d bytes of this block left out: over this turn's page-in budget …]\n", len(ans)-room)
	if room < 2*len(note) {
		return fmt.Sprintf("<ctx_error id=%q>the block is %d bytes and this turn's page-in budget is spent; use ctx_search or ask in a later turn</ctx_error>", id, len(ans))
	}
	half := (room - len(note)) / 2
	return ans[:half] + note + ans[len(ans)-half:]
}
