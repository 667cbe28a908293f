package replay

import (
	"encoding/json"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
)

// sources tracks what produced each observation of a transcript: the
// SWE-agent action of the assistant message before it, or the tool call
// an OpenAI tool message answers.
type sources struct {
	action string
	calls  map[string]string
}

// next returns the source of message m (raw form r) and remembers the
// action or tool calls an assistant message makes.
func (s *sources) next(r rawMessage, m diet.Message) string {
	if r.Role == "assistant" {
		s.action = strings.TrimSpace(r.Action)
		s.calls = callSources(r.ToolCalls)
		if s.action == "" && len(s.calls) == 1 {
			for _, c := range s.calls {
				s.action = c
			}
		}
		return ""
	}
	if c, ok := s.calls[r.ToolCallID]; ok && r.ToolCallID != "" {
		return c
	}
	if m.Kind == "observation" || r.Role == "tool" {
		return s.action
	}
	return ""
}

// callSources maps each OpenAI tool call's id to its name and main
// argument.
func callSources(raw json.RawMessage) map[string]string {
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &calls) != nil {
		return nil
	}
	out := map[string]string{}
	for _, c := range calls {
		out[c.ID] = diet.CallSource(c.Function.Name, c.Function.Arguments)
	}
	return out
}
