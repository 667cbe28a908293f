package agent

import (
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
)

// callSource names the tool call that callID answers (its name and main
// argument, or the shell command), found in the assistant message before
// the tool results that prev ends with; "" when there is none.
func callSource(prev []provider.Message, callID string) string {
	for i := len(prev) - 1; i >= 0; i-- {
		if prev[i].Role == "tool" {
			continue
		}
		for _, tc := range prev[i].ToolCalls {
			if tc.ID == callID {
				return diet.CallSource(tc.Name, tc.Arguments)
			}
		}
		return ""
	}
	return ""
}
