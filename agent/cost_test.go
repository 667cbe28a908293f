package agent

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestCallCostFromReportedAndEstimatedCache checks each call's
// cache-weighted cost: from the provider's cached tokens where it reports
// them, else from the prompt prefix shared with the previous call, and
// naive resend's cost with every previous prompt cached.
func TestCallCostFromReportedAndEstimatedCache(t *testing.T) {
	first := providertest.ToolStep(call("c1", "read_file", map[string]any{"path": "a.txt", "mode": "full"}))
	first.Usage = &provider.Usage{PromptTokens: 5000, CacheReported: true}
	second := providertest.ToolStep(call("c2", "read_file", map[string]any{"path": "a.txt", "mode": "full"}))
	second.Usage = &provider.Usage{PromptTokens: 6000, CachedTokens: 4864}
	r := newRig(t, nil, first, second, providertest.TextStep("done"))
	os.WriteFile(filepath.Join(r.ws, "a.txt"), []byte(strings.Repeat("alpha beta gamma\n", 300)), 0o644)
	r.run("read a.txt twice")

	var costs []Cost
	for _, e := range r.eventsOf(EvUsage) {
		costs = append(costs, *e.Cost)
	}
	diets := r.eventsOf(EvDiet)
	if len(costs) != 3 || len(diets) != 3 {
		t.Fatalf("%d costs, %d diet events", len(costs), len(diets))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	c1, c2, c3 := costs[0], costs[1], costs[2]
	if c1.Reported != 1 || c1.CachedTokens != 0 || !near(c1.Weighted, 5000) || c1.NaiveCachedTokens != 0 {
		t.Errorf("first call: %+v", c1)
	}
	if c2.Reported != 1 || c2.CachedTokens != 4864 || !near(c2.Weighted, 6000-4864+0.1*4864) {
		t.Errorf("second call: %+v", c2)
	}
	if c2.NaiveCachedTokens == 0 || c2.NaiveCachedTokens > c2.NaiveTokens || c2.NaiveTokens < c2.PromptTokens {
		t.Errorf("second call's naive resend: %+v", c2)
	}
	// The third call reports nothing: its prompt is our count, its cache
	// the prefix it shares with the second call (all but the new result).
	d := diets[2].Diet
	if c3.Reported != 0 || c3.PromptTokens != d.SentTokens || c3.CachedTokens != d.CachedPrefixTokens ||
		c3.CachedTokens == 0 || c3.CachedTokens >= c3.PromptTokens {
		t.Errorf("third call: %+v, diet event %+v", c3, d)
	}
	tot := r.a.Totals().Cost
	if tot.Calls != 3 || tot.Reported != 2 || !near(tot.Weighted, c1.Weighted+c2.Weighted+c3.Weighted) || !near(tot.Percent(), 100*tot.Weighted/tot.NaiveWeighted) {
		t.Errorf("totals %+v (%.1f%% of naive)", tot, tot.Percent())
	}
}
