package agent

import (
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
)

// CacheDiscount is what a cached prompt token costs against an uncached
// one: providers bill a cached prefix at about a tenth (OpenAI's newer
// models, Anthropic's cache reads) and local servers skip its prefill.
const CacheDiscount = 0.1

// Cost is the cache-weighted input cost of one call, or summed over calls:
// uncached + CacheDiscount × cached prompt tokens, against naive resend,
// which sends every message whole and append-only, so each of its calls
// finds the whole previous prompt cached.
type Cost struct {
	PromptTokens int `json:"prompt_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// Weighted is uncached + CacheDiscount × cached prompt tokens.
	Weighted          float64 `json:"weighted"`
	NaiveTokens       int     `json:"naive_tokens"`
	NaiveCachedTokens int     `json:"naive_cached_tokens"`
	NaiveWeighted     float64 `json:"naive_weighted"`
	// Reported counts the calls whose cached tokens the provider
	// reported; the others are estimated from the prompt prefix shared
	// with the previous call.
	Reported int `json:"reported_calls"`
	Calls    int `json:"calls"`
}

// Percent is the weighted cost as a share of naive resend's, or 0 before
// any call.
func (c Cost) Percent() float64 {
	if c.NaiveWeighted == 0 {
		return 0
	}
	return 100 * c.Weighted / c.NaiveWeighted
}

// Add sums two costs.
func (c Cost) Add(o Cost) Cost {
	c.PromptTokens += o.PromptTokens
	c.CachedTokens += o.CachedTokens
	c.Weighted += o.Weighted
	c.NaiveTokens += o.NaiveTokens
	c.NaiveCachedTokens += o.NaiveCachedTokens
	c.NaiveWeighted += o.NaiveWeighted
	c.Reported += o.Reported
	c.Calls += o.Calls
	return c
}

// weighted is uncached + CacheDiscount × cached.
func weighted(prompt, cached int) float64 {
	return float64(prompt-cached) + CacheDiscount*float64(cached)
}

// callCost prices call w, whose answer reported usage u. The provider's
// prompt and cached tokens are used where it gives them; the cached prefix
// is otherwise prefix, the tokens w shares with the previous call from its
// start. Naive resend's figures are scaled to the provider's tokens when it
// reports them, so both sides count alike.
func (a *Agent) callCost(w wirePrompt, u provider.Usage, prefix int) Cost {
	c := Cost{Calls: 1, PromptTokens: w.sent, CachedTokens: prefix}
	scale := 1.0
	if u.PromptTokens > 0 && w.sent > 0 {
		scale = float64(u.PromptTokens) / float64(w.sent)
		c.PromptTokens = u.PromptTokens
		c.CachedTokens = int(scale * float64(c.CachedTokens))
	}
	if u.CacheReported {
		c.CachedTokens = u.CachedTokens
		c.Reported = 1
	}
	c.CachedTokens = min(c.CachedTokens, c.PromptTokens)
	c.Weighted = weighted(c.PromptTokens, c.CachedTokens)
	naive := scale * float64(w.naive)
	c.NaiveTokens = int(naive)
	c.NaiveCachedTokens = int(min(a.prevNaive, naive))
	c.NaiveWeighted = weighted(c.NaiveTokens, c.NaiveCachedTokens)
	a.prevNaive = naive
	return c
}

// sharedPrefix is how many tokens of w repeat the previous call's prompt
// from its start: the schemas when they are the same, then each message
// equal to the previous call's at its place.
func (a *Agent) sharedPrefix(w wirePrompt) int {
	p := a.prev
	if p == nil || !sameSpecs(p.specs, w.specs) {
		return 0
	}
	n := diet.PromptOverheadTokens + w.specsTok
	for i, m := range w.msgs {
		if i >= len(p.msgs) || !sameMessage(p.msgs[i], m) {
			break
		}
		n += w.tok[i]
	}
	return n
}

func sameSpecs(a, b []provider.ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

func sameMessage(a, b provider.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || a.Name != b.Name || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i, c := range a.ToolCalls {
		if c != b.ToolCalls[i] {
			return false
		}
	}
	return true
}
