package diet

import (
	"strings"

	"github.com/kwsdev/kws/vault"
)

// Ref sizing: a reference must stay small next to its block, or many small
// refs cost as much as the text they replace. The summary gets the block's
// bytes divided by Params.RefDivisor, within these bounds; blocks under
// fullRefChars get the short form (no k, tok, c or t, and p only when
// high): the message's role already tells what it was.
const (
	minSummary   = 24
	maxSummary   = 320
	fullRefChars = 4000
)

// ref builds the reference for entry e.
func (s *State) ref(e *entry, autoRestored bool) vault.Ref {
	return RefFor(s.p, e.id, e.msg.kind(), e.body(), *e.desc, e.naiveTok-MsgOverheadTokens, autoRestored)
}

// body is the text e's block holds: the message, or for a full page-in
// answer the block it answered with.
func (e *entry) body() string {
	if e.pin != nil {
		return e.pin.data
	}
	return e.msg.Content
}

// RefFor builds the sized reference for a block with description d.
func RefFor(p Params, id, kind, content string, d Description, tokens int, autoRestored bool) vault.Ref {
	n := len(content)
	budget := n / p.RefDivisor
	budget = max(minSummary, min(maxSummary, budget))
	r := vault.Ref{Tag: vault.TagCtx, ID: id, Chars: n,
		AutoRestored: autoRestored, Sensitive: d.Sensitive, Summary: d.Summary(budget)}
	if d.Priority == "high" {
		r.Priority = d.Priority
	}
	if n >= fullRefChars {
		r.Kind = shortKind(kind)
		r.Tokens = tokens
		r.Confidence = d.Confidence
		r.Priority = d.Priority
		nt := 2
		if n >= 12000 {
			nt = 4
		}
		r.Topics = d.Topics[:min(nt, len(d.Topics))]
	}
	return r
}

// shortKind abbreviates common kinds so a ref spends its bytes on content.
func shortKind(kind string) string {
	switch kind {
	case "assistant":
		return "asst"
	case "observation":
		return "obs"
	}
	return strings.TrimSpace(kind)
}
