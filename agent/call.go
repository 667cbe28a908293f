package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/vault"
)

// room is what a prompt may fill: the window less the completion reserve,
// or 0 when the profile does not say.
func (a *Agent) room() int {
	return max(a.cfg.Profile.ContextWindow-a.cfg.Profile.CompletionReserve, 0)
}

// budget is the share of room() a dieted prompt may fill.
func (a *Agent) budget() int {
	return int(a.cfg.CompactAt * float64(a.room()))
}

// usageOver reports whether the provider's prompt tokens on the last call
// passed usageShare of room(): its tokenizer is the authority, and it may
// count more than ours.
func (a *Agent) usageOver() bool {
	w := a.room()
	return w > 0 && float64(a.lastPrompt) > usageShare*float64(w)
}

// call builds the prompt (compacting first when it is over budget, by our
// count or by the provider's on the last call), calls the model, and on a
// context-overflow error compacts and retries once.
func (a *Agent) call(ctx context.Context, direct bool) (provider.Response, error) {
	a.directTurn = direct
	w, err := a.build()
	if err != nil {
		return provider.Response{}, err
	}
	if b := a.budget(); b > 0 && w.sent > b {
		w, err = a.compact(ctx, "proactive", w)
	} else if a.usageOver() {
		w, err = a.compact(ctx, "usage", w)
	}
	if b := a.budget(); err == nil && b > 0 && w.sent > b {
		w, err = a.squeeze(w)
	}
	if err != nil {
		return provider.Response{}, err
	}
	resp, err := a.send(ctx, w)
	if errors.Is(err, provider.ErrContextOverflow) {
		if w, err = a.compact(ctx, "overflow", w); err != nil {
			return provider.Response{}, err
		}
		resp, err = a.send(ctx, w)
	}
	if err != nil {
		return provider.Response{}, err
	}
	a.account(w, resp)
	return resp, nil
}

// build diets the history into the next request, telling the diet first
// what the request sends besides the contents, so its trigger sees all.
// The diet adds its decoder prompt once it externalizes; the agent's
// system prompt always holds it, so that is taken off again.
func (a *Agent) build() (wirePrompt, error) {
	specs := a.toolSpecs(a.directTurn)
	a.dietS.SetExtraTokens(a.specsTokens(specs)-a.decoderDup, a.callsTokensAll(), a.savableArguments())
	res, err := a.dietS.Build()
	if err != nil {
		return wirePrompt{}, err
	}
	a.decoderDup = res.DecoderTokens
	return a.wirePrompt(res, specs)
}

// squeezeKeep is how many of the newest messages a squeeze leaves exact.
const squeezeKeep = 2

// squeeze, for a request still over the budget after compaction (the
// recent window alone is too big: a turn that read file after file),
// lets the diet externalize all but the newest squeezeKeep messages, and
// returns the smaller request.
func (a *Agent) squeeze(w wirePrompt) (wirePrompt, error) {
	a.dietS.Squeeze(squeezeKeep)
	after, err := a.build()
	if err != nil || after.sent >= w.sent {
		return w, err
	}
	return after, nil
}

func (a *Agent) send(ctx context.Context, w wirePrompt) (provider.Response, error) {
	req := provider.Request{Model: a.cfg.Model, Messages: w.msgs, Tools: w.specs, MaxTokens: a.cfg.Profile.CompletionReserve}
	return a.cfg.Client.Chat(ctx, req, func(d provider.Delta) {
		if d.Retry != nil {
			a.emit(Event{Type: EvRetry, Text: d.Retry.String()})
			return
		}
		a.emit(Event{Type: EvTextDelta, Text: d.Text, Restart: d.Restart})
	})
}

// tellToolRefs publishes EvToolRef for each tool result this prompt sent
// as a vault ref for the first time, so that its card can show and open
// the exact output.
func (a *Agent) tellToolRefs(msgs []provider.Message) {
	for _, m := range msgs {
		if m.Role != "tool" || m.ToolCallID == "" || a.toolRefs[m.ToolCallID] || !strings.HasPrefix(m.Content, "<") {
			continue
		}
		refs := vault.ParseRefs(m.Content)
		if len(refs) == 0 || refs[0].Tag == vault.TagSeen {
			continue
		}
		if a.toolRefs == nil {
			a.toolRefs = map[string]bool{}
		}
		a.toolRefs[m.ToolCallID] = true
		a.emit(Event{Type: EvToolRef, CallID: m.ToolCallID, Text: refs[0].ID})
	}
}

// account records one call: diet stats with what went on the wire,
// provider usage, the call's cache-weighted cost and what was sent.
func (a *Agent) account(w wirePrompt, resp provider.Response) {
	ev := w.res.Event
	// The diet's own count starts again with each compaction; the agent's
	// goes on. Faults are those answered since the last call, so adding
	// the events up counts each once; chars measure what tokens do.
	ev.Call = a.totals.Calls + 1
	ev.PageFaults = a.totals.PageFaults - a.faultsLogged
	a.faultsLogged = a.totals.PageFaults
	ev.NaiveTokens, ev.SentTokens = w.naive, w.sent
	ev.NaiveChars, ev.SentChars = w.naiveChars, w.sentChars
	ev.SavedTokens = ev.NaiveTokens - ev.SentTokens
	ev.CachedPrefixTokens = a.sharedPrefix(w)
	cost := a.callCost(w, resp.Usage, ev.CachedPrefixTokens)
	a.prev, a.lastPrompt = &w, resp.Usage.PromptTokens
	a.totals.Calls++
	a.totals.NaiveTokens += ev.NaiveTokens
	a.totals.SentTokens += ev.SentTokens
	a.totals.PromptTokens += resp.Usage.PromptTokens
	a.totals.CompletionTokens += resp.Usage.CompletionTokens
	a.totals.CachedTokens += resp.Usage.CachedTokens
	a.totals.Cost = a.totals.Cost.Add(cost)
	if err := a.cfg.Vault.AppendStats(ev); err != nil {
		a.emit(Event{Type: EvError, Error: "stats: " + err.Error()})
	}
	a.noteSent(w.res)
	a.tellToolRefs(w.msgs)
	a.emit(Event{Type: EvDiet, Diet: &ev})
	usage := resp.Usage
	a.emit(Event{Type: EvUsage, Usage: &usage, Cost: &cost})
	if a.cfg.Recorder != nil {
		names := make([]string, len(w.specs))
		for i, s := range w.specs {
			names[i] = s.Name
		}
		if err := a.cfg.Recorder.RecordCall(w.msgs, names, resp.Usage, resp.Attempts); err != nil {
			a.emit(Event{Type: EvError, Error: "session: " + err.Error()})
		}
	}
}
