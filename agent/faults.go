package agent

import (
	"fmt"

	"github.com/kwsdev/kws/agent/diet"
)

// pageFault answers one request for vaulted context, within the turn's
// caps: a repeated get is answered by reference, not resent; past the
// fault cap or the injected-bytes budget the model is told to go on with
// what it has; an oversized block comes back as its head and tail.
func (a *Agent) pageFault(f diet.Fault) string {
	a.emit(Event{Type: EvPageFault, Fault: &f})
	a.event("page_fault", f)
	if f.Op == "get" && a.seenIDs[f.ID] {
		return fmt.Sprintf("<ctx_exact id=%q repeated=\"true\"/> (sent earlier in this turn; read it above)", f.ID)
	}
	if a.faults >= a.cfg.MaxPageFaults {
		return fmt.Sprintf("<ctx_error>page-fault limit of %d per turn reached; continue with what you have</ctx_error>", a.cfg.MaxPageFaults)
	}
	a.faults++
	a.totals.PageFaults++
	ans := diet.Answer(a.cfg.Vault, a.cfg.Vault, f)
	room := a.cfg.MaxInjectedChars - a.injected
	if len(ans) > room {
		ans = partialExact(f.ID, ans, room)
	}
	a.injected += len(ans)
	if f.Op == "get" {
		a.seenIDs[f.ID] = true
	}
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
