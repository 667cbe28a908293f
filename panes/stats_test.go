package panes

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/swarm"
)

// statsTestAgents are two agents with fixed figures: one that has dieted
// a long session and one whose prompts were all sent whole.
func statsTestAgents() []swarm.Info {
	var long []swarm.Point
	for i := range 150 {
		naive := 2000 + 180*i
		long = append(long, swarm.Point{Naive: naive, Sent: min(naive, 2000+40*i)})
	}
	return []swarm.Info{
		{Name: "agent-1", State: swarm.StateIdle, Stats: swarm.Stats{
			Calls: 150, NaiveTokens: 2_311_500, SentTokens: 745_000, Refs: 87, SeenRefs: 12, PageFaults: 5,
			AutoRestores: 2, Compactions: 1, PromptTokens: 748_210, CompletionTokens: 40_125, CachedTokens: 512_000,
			Series: long}},
		{Name: "agent-2", State: swarm.StateThinking, Stats: swarm.Stats{
			Calls: 3, NaiveTokens: 9_400, SentTokens: 9_400, PromptTokens: 9_412, CompletionTokens: 812,
			Series: []swarm.Point{{Naive: 2100, Sent: 2100}, {Naive: 3100, Sent: 3100}, {Naive: 4200, Sent: 4200}}}},
	}
}

func TestStatsGolden(t *testing.T) {
	agents := statsTestAgents()
	p := NewStatsPane(testEnv(), func() []swarm.Info { return agents })
	if p.Kind() != "stats" || p.Title() != "stats" {
		t.Errorf("Kind, Title = %q, %q", p.Kind(), p.Title())
	}
	golden(t, "stats_120x40", screenText(render(t, p, 120, 40)))
	golden(t, "stats_80x24", screenText(render(t, p, 80, 24)))
}

func TestStatsSavedPercent(t *testing.T) {
	agents := statsTestAgents()
	p := NewStatsPane(testEnv(), func() []swarm.Info { return agents })
	text := screenText(render(t, p, 120, 40))
	for _, want := range []string{"67.8%", "0.0%", "67.5%"} {
		if !strings.Contains(text, want) {
			t.Errorf("saved %s missing:\n%s", want, text)
		}
	}
	total := agents[0].Stats.Add(agents[1].Stats)
	if got := statsSaved(total); got != "67.5%" {
		t.Errorf("total saved = %s, want 67.5%%", got)
	}
	if got := statsSaved(swarm.Stats{}); got != "-" {
		t.Errorf("saved with no calls = %s, want -", got)
	}
	agents = append(agents, swarm.Info{Name: "agent-3"})
	p.Refresh()
	if text := screenText(render(t, p, 120, 40)); !strings.Contains(text, "agent-3") {
		t.Errorf("Refresh did not read the new agent:\n%s", text)
	}
}

func TestStatsSparkline(t *testing.T) {
	series := []swarm.Point{{Naive: 90_000, Sent: 90_000}}
	for range 40 {
		series = append(series, swarm.Point{Naive: 50, Sent: 50})
	}
	series = append(series, swarm.Point{Naive: 800, Sent: 100}, swarm.Point{Naive: 400, Sent: 400},
		swarm.Point{}, swarm.Point{Naive: 100, Sent: 1})
	agents := []swarm.Info{{Name: "a", Stats: swarm.Stats{Calls: len(series), Series: series}}}
	p := NewStatsPane(testEnv(), func() []swarm.Info { return agents })
	s := render(t, p, 40, 12)
	lines := strings.Split(screenText(s), "\n")
	var naive, sent string
	var row int
	for i, l := range lines {
		if strings.HasPrefix(l, "a     naive ") {
			naive, sent, row = l, lines[i+1], i
		}
	}
	// The 90,000-token call has scrolled out of the 28-column window, so
	// the scale is the largest naive call still visible: 800.
	if got, want := []rune(naive)[len([]rune(naive))-4:], []rune("█▄ ▁"); string(got) != string(want) {
		t.Errorf("naive bars end %q, want %q\n%s", string(got), string(want), screenText(s))
	}
	if got, want := []rune(sent)[len([]rune(sent))-4:], []rune("▁▄ ▁"); string(got) != string(want) {
		t.Errorf("sent bars end %q, want %q", string(got), string(want))
	}
	th := testEnv().Theme
	if styleAt(s, 39, row) != th.StatsNaive.TCell() || styleAt(s, 39, row+1) != th.StatsSent.TCell() {
		t.Error("bars are not in StatsNaive and StatsSent styles")
	}
	if n, _ := statsSeries(nil, 10); n != "no calls yet" {
		t.Errorf("empty series shows %q", n)
	}
}

func TestStatsScrollAndEmpty(t *testing.T) {
	agents := statsTestAgents()
	p := NewStatsPane(testEnv(), func() []swarm.Info { return agents })
	render(t, p, 80, 5)
	vaultPress(p, "j", "j", "j")
	if got := strings.SplitN(screenText(render(t, p, 80, 5)), "\n", 2)[0]; !strings.HasPrefix(got, "total") {
		t.Errorf("after jjj the first line is %q, want the total row", got)
	}
	vaultPress(p, "G", "k", "g")
	if got := screenText(render(t, p, 80, 5)); !strings.HasPrefix(got, "agent ") {
		t.Errorf("g did not return to the top:\n%s", got)
	}
	agents = nil
	p.Refresh()
	if got := screenText(render(t, p, 80, 5)); !strings.HasPrefix(got, "No agents yet") {
		t.Errorf("empty swarm shows:\n%s", got)
	}
}

func TestStatsHuman(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1.0k", 12_345: "12.3k", 99_949: "99.9k",
		99_950: "100k", 745_000: "745k", 999_499: "999k", 999_500: "1.0M", 4_500_000: "4.5M", 123_400_000: "123M",
		2_000_000_000: "2.0G"} {
		if got := statsHuman(n); got != want {
			t.Errorf("statsHuman(%d) = %q, want %q", n, got, want)
		}
	}
}
