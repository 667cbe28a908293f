package replay

import (
	"math"
	"sort"
	"time"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
)

// Row is one file's replay figures; its JSON is the --json output line.
type Row struct {
	File              string  `json:"file"`
	Messages          int     `json:"messages"`
	Calls             int     `json:"calls"`
	NaiveTokensTotal  int     `json:"naive_tokens_total"`
	SentTokensTotal   int     `json:"sent_tokens_total"`
	ReductionPctTotal float64 `json:"reduction_pct_total"`
	FinalNaiveTokens  int     `json:"final_naive_tokens"`
	FinalSentTokens   int     `json:"final_sent_tokens"`
	FinalReductionPct float64 `json:"final_reduction_pct"`
	NaiveCharsTotal   int     `json:"naive_chars_total"`
	SentCharsTotal    int     `json:"sent_chars_total"`
	Refs              int     `json:"refs"`
	SeenRefs          int     `json:"seen_refs"`
	CachedPrefixPct   float64 `json:"cached_prefix_pct"`
	DietMsP50         float64 `json:"diet_ms_p50"`
	DietMsMax         float64 `json:"diet_ms_max"`
	Lossless          int     `json:"lossless"`
	Ingested          int     `json:"ingested"`
	AutoRestores      int     `json:"auto_restores"`
	DietMs20th        float64 `json:"diet_ms_20th"`
	DietMsLast        float64 `json:"diet_ms_last"`
	// CostTokens is the cache-weighted input cost of every call (uncached
	// tokens plus CacheDiscount × the exact prefix shared with the previous
	// call's prompt); NaiveCostTokens is the same for naive resend and
	// CostPct the first as a share of the second.
	CacheDiscount   float64 `json:"cache_discount"`
	CostTokens      int     `json:"cost_tokens"`
	NaiveCostTokens int     `json:"naive_cost_tokens"`
	CostPct         float64 `json:"cost_pct_of_naive"`
	// PeakTokens is the largest dieted prompt; Epochs counts the calls
	// that externalized more history (each breaks the cached prefix).
	PeakTokens int `json:"peak_tokens"`
	Epochs     int `json:"epochs"`
	// The bound on every call's prompt is the trigger plus its recent
	// window: the tokens the newest Recent messages send at that call.
	// PeakOverBound is the most a call's prompt went over it (0: never),
	// CallsOverBound how many calls did.
	PeakOverBound  int `json:"peak_over_bound"`
	CallsOverBound int `json:"calls_over_bound"`
}

// Outcome is a replay's row, its final prompt and its per-call events
// and prompt sizes.
type Outcome struct {
	Row    Row
	Final  []diet.Message
	Last   diet.Result // the final call's prompt
	Events []vault.DietEvent
	Calls  []CallTokens
}

// Run replays conv: a call before every assistant message (the prompt is
// every earlier message, dieted) and one after the last message. The time
// of a call is the Add of its new messages plus Build. onCall, if not nil,
// sees every call's result. The row's cost is priced at
// DefaultCacheDiscount; Outcome.Price reprices it.
func Run(conv Conversation, p diet.Params, store diet.Store, counter *tokens.Counter, onCall func(diet.Result)) (Outcome, error) {
	o, _, err := runSession(conv, p, store, counter, onCall)
	return o, err
}

// runSession is Run, which also returns the diet state, as the replay
// left it.
func runSession(conv Conversation, p diet.Params, store diet.Store, counter *tokens.Counter, onCall func(diet.Result)) (Outcome, *diet.State, error) {
	if counter == nil {
		counter = tokens.Default()
	}
	s, err := diet.NewState(p, store, counter, "replay", conv.Name)
	if err != nil {
		return Outcome{}, nil, err
	}
	out := Outcome{Row: Row{File: conv.Name, Messages: len(conv.Messages)}}
	var prev diet.Result
	var micros []int64
	call := func(upto int) error {
		start := time.Now()
		s.Add(conv.Messages[s.Len():upto]...)
		res, err := s.Build()
		if err != nil {
			return err
		}
		micros = append(micros, time.Since(start).Microseconds())
		res.Event.DietMicros = micros[len(micros)-1]
		if over := res.Event.SentTokens - p.TriggerTokens - recentTokens(res, p.Recent); over > 0 {
			out.Row.PeakOverBound = max(out.Row.PeakOverBound, over)
			out.Row.CallsOverBound++
		}
		out.Calls = append(out.Calls, CallTokens{Naive: res.Event.NaiveTokens, Sent: res.Event.SentTokens,
			Prefix: sharedPrefixTokens(prev, res)})
		if onCall != nil {
			onCall(res)
		}
		out.Events = append(out.Events, res.Event)
		prev = res
		return nil
	}
	for i, m := range conv.Messages {
		if m.Role == "assistant" && i > 0 {
			if err := call(i); err != nil {
				return out, s, err
			}
		}
	}
	if err := call(len(conv.Messages)); err != nil {
		return out, s, err
	}
	r := &out.Row
	r.Calls = len(out.Events)
	for _, e := range out.Events {
		r.NaiveTokensTotal += e.NaiveTokens
		r.SentTokensTotal += e.SentTokens
		r.NaiveCharsTotal += e.NaiveChars
		r.SentCharsTotal += e.SentChars
		r.AutoRestores += e.AutoRestores
		r.PeakTokens = max(r.PeakTokens, e.SentTokens)
		if e.Epoch {
			r.Epochs++
		}
	}
	prefixTok := 0
	for _, c := range out.Calls {
		prefixTok += c.Prefix
	}
	last := out.Events[len(out.Events)-1]
	r.FinalNaiveTokens, r.FinalSentTokens = last.NaiveTokens, last.SentTokens
	r.Refs, r.SeenRefs = last.Refs, last.SeenRefs
	r.Lossless, r.Ingested = last.Lossless, last.Ingested
	r.ReductionPctTotal = pct(r.NaiveTokensTotal-r.SentTokensTotal, r.NaiveTokensTotal)
	r.FinalReductionPct = pct(r.FinalNaiveTokens-r.FinalSentTokens, r.FinalNaiveTokens)
	r.CachedPrefixPct = pct(prefixTok, r.SentTokensTotal)
	r.DietMsP50, r.DietMsMax = quantiles(micros)
	if len(micros) >= 20 {
		r.DietMs20th = ms(micros[19])
	}
	r.DietMsLast = ms(micros[len(micros)-1])
	out.Final = prev.Messages
	out.Price(DefaultCacheDiscount)
	out.Last = prev
	return out, s, nil
}

// recentTokens is what the newest n messages of res send.
func recentTokens(res diet.Result, n int) int {
	t := 0
	for _, k := range res.Tokens[max(0, len(res.Tokens)-n):] {
		t += k
	}
	return t
}

// sharedPrefixTokens counts the tokens of cur that repeat prev's prompt as
// an exact prefix, whole messages at a time (a changed decoder prompt in
// the system message breaks the prefix at its start).
func sharedPrefixTokens(prev, cur diet.Result) int {
	if prev.Messages == nil || prev.Active != cur.Active {
		return 0
	}
	n := diet.PromptOverheadTokens + cur.DecoderTokens
	for i := range cur.Messages {
		if i >= len(prev.Messages) || prev.Messages[i] != cur.Messages[i] {
			break
		}
		n += cur.Tokens[i]
	}
	return n
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(1000*float64(a)/float64(b)) / 10
}

func ms(us int64) float64 { return math.Round(float64(us)/10) / 100 }

func quantiles(us []int64) (p50, maxMs float64) {
	s := append([]int64(nil), us...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return ms(s[(len(s)-1)/2]), ms(s[len(s)-1])
}
