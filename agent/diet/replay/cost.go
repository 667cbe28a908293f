package replay

import "math"

// DefaultCacheDiscount is the price of a cached prompt token relative to
// an uncached one: providers bill cache reads at about a tenth, and local
// servers skip the prefill of a cached prefix.
const DefaultCacheDiscount = 0.1

// CallTokens is one call's prompt size, dieted and naive, and how much of
// the dieted prompt repeats the previous call's as an exact prefix.
type CallTokens struct {
	Naive  int `json:"naive"`
	Sent   int `json:"sent"`
	Prefix int `json:"prefix"`
}

// Cost is what a run of calls costs in uncached-token equivalents at a
// cache discount: each call pays its uncached tokens in full and its
// cached prefix at discount. Naive resend is append-only, so its cached
// prefix is always the whole previous prompt.
func Cost(calls []CallTokens, discount float64) (sent, naive float64) {
	prevNaive := 0
	for _, c := range calls {
		sent += float64(c.Sent-c.Prefix) + discount*float64(c.Prefix)
		cached := min(prevNaive, c.Naive)
		naive += float64(c.Naive-cached) + discount*float64(cached)
		prevNaive = c.Naive
	}
	return sent, naive
}

// Price fills o's cost figures at a cache discount.
func (o *Outcome) Price(discount float64) {
	r := &o.Row
	sent, naive := Cost(o.Calls, discount)
	r.CacheDiscount = discount
	r.CostTokens, r.NaiveCostTokens = int(math.Round(sent)), int(math.Round(naive))
	r.CostPct = pct(r.CostTokens, r.NaiveCostTokens)
}
