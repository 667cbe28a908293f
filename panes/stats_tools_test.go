package panes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/swarm"
)

// TestStatsPerToolGolden checks the per-tool table: every agent's tools
// summed by name, most output first, with calls, output tokens and the
// tokens the diet saved on them.
func TestStatsPerToolGolden(t *testing.T) {
	agents := statsTestAgents()
	agents[0].Stats.Tools = []agent.ToolStat{
		{Name: "shell", Calls: 41, OutputTokens: 512_300, SavedTokens: 431_900},
		{Name: "read_file", Calls: 60, OutputTokens: 201_000, SavedTokens: 120_400},
		{Name: "edit_file", Calls: 12, OutputTokens: 3_100},
	}
	agents[1].Stats.Tools = []agent.ToolStat{{Name: "read_file", Calls: 2, OutputTokens: 4_000}}
	p := NewStatsPane(testEnv(), func() []swarm.Info { return agents })
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		text := screenText(render(t, p, size[0], size[1]))
		for _, want := range []string{"per tool, every agent", "shell         41    512k   432k", "read_file     62    205k   120k", "edit_file     12    3.1k      0"} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: %q missing:\n%s", size, want, text)
			}
		}
		golden(t, fmt.Sprintf("stats_tools_%dx%d", size[0], size[1]), text)
	}
}
