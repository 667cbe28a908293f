package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// toolFence opens a fenced tool call block in the text protocol.
const toolFence = "```tool"

// ToolProtocolPrompt describes tools to a model without native tool calls,
// asking for each call as a fenced block tagged tool. It is appended to the
// system message; it returns "" when there are no tools.
func ToolProtocolPrompt(tools []ToolSpec) string {
	if len(tools) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("You can call the tools listed below. To call one, write a fenced block tagged `tool` ")
	b.WriteString("holding one JSON object with the tool's name and its arguments, exactly like this:\n\n")
	b.WriteString(toolFence + "\n{\"name\": \"TOOL_NAME\", \"arguments\": {\"ARGUMENT\": \"VALUE\"}}\n```\n\n")
	b.WriteString("Rules:\n")
	b.WriteString("- Put each call in its own block; you may write several blocks in one reply.\n")
	b.WriteString("- The arguments must be a JSON object matching the tool's schema.\n")
	b.WriteString("- After your tool blocks, stop and wait. Each result comes back in a user message ")
	b.WriteString("that starts with \"Tool result for NAME (ID):\".\n")
	b.WriteString("- When you need no tool, answer in plain text without any tool block.\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "\n## %s\n\n", t.Name)
		if d := strings.TrimSpace(t.Description); d != "" {
			b.WriteString(d + "\n\n")
		}
		params := "{}"
		if len(t.Parameters) > 0 {
			var compact bytes.Buffer
			if json.Compact(&compact, t.Parameters) == nil {
				params = compact.String()
			}
		}
		fmt.Fprintf(&b, "Arguments (JSON Schema): %s\n", params)
	}
	return b.String()
}

// ParseTextToolCalls extracts the fenced tool blocks of a text-protocol
// answer. Calls get the ids call_txt_1, call_txt_2, … in order. A block
// whose JSON is malformed or names no tool is not a call and stays in rest,
// which is the text without the extracted blocks. A final block the model
// left unclosed still counts when its JSON is complete.
func ParseTextToolCalls(text string) (calls []ToolCall, rest string) {
	lines := strings.SplitAfter(text, "\n")
	var out strings.Builder
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != toolFence {
			out.WriteString(lines[i])
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		body := strings.Join(lines[i+1:min(end, len(lines))], "")
		call, ok := parseToolBlock(body)
		if !ok {
			out.WriteString(lines[i])
			continue
		}
		call.ID = fmt.Sprintf("call_txt_%d", len(calls)+1)
		calls = append(calls, call)
		i = end
	}
	return calls, strings.TrimSpace(out.String())
}

// parseToolBlock decodes {"name": …, "arguments": …}; the arguments may be
// an object or a string holding one.
func parseToolBlock(body string) (ToolCall, bool) {
	var raw struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(&raw); err != nil || strings.TrimSpace(raw.Name) == "" {
		return ToolCall{}, false
	}
	if dec.More() {
		return ToolCall{}, false
	}
	args := bytes.TrimSpace(raw.Arguments)
	var s string
	if json.Unmarshal(args, &s) == nil {
		args = []byte(strings.TrimSpace(s))
	}
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil {
		return ToolCall{}, false
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, args); err != nil {
		return ToolCall{}, false
	}
	return ToolCall{Name: strings.TrimSpace(raw.Name), Arguments: compact.String()}, true
}

// textProtocolMessages rewrites messages for a model without native tools:
// the tool prompt joins the system message, the assistant's earlier calls
// become fenced blocks and tool results become user messages (consecutive
// results merged into one).
func textProtocolMessages(msgs []Message, tools []ToolSpec) []Message {
	out := make([]Message, 0, len(msgs)+1)
	names := map[string]string{}
	prompt := ToolProtocolPrompt(tools)
	prompted := prompt == ""
	lastWasResult := false
	for _, m := range msgs {
		isResult := false
		switch {
		case m.Role == "system" && !prompted:
			m.Content = strings.TrimRight(m.Content, "\n") + "\n\n" + prompt
			prompted = true
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			var b strings.Builder
			b.WriteString(strings.TrimSpace(m.Content))
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
				if b.Len() > 0 {
					b.WriteString("\n\n")
				}
				b.WriteString(renderToolBlock(tc))
			}
			m = Message{Role: "assistant", Content: b.String(), Name: m.Name}
		case m.Role == "tool":
			name := m.Name
			if name == "" {
				name = names[m.ToolCallID]
			}
			content := m.Content
			if content == "" {
				content = emptyToolResult
			}
			text := fmt.Sprintf("Tool result for %s (%s):\n%s", name, m.ToolCallID, content)
			isResult = true
			if lastWasResult {
				out[len(out)-1].Content += "\n\n" + text
				continue
			}
			m = Message{Role: "user", Content: text}
		}
		lastWasResult = isResult
		out = append(out, m)
	}
	if !prompted {
		out = append([]Message{{Role: "system", Content: prompt}}, out...)
	}
	return out
}

// renderToolBlock writes a call the way the text protocol asks for it.
func renderToolBlock(tc ToolCall) string {
	args := json.RawMessage(argumentsOrEmpty(tc.Arguments))
	if !json.Valid(args) {
		quoted, _ := json.Marshal(tc.Arguments)
		args = quoted
	}
	name, _ := json.Marshal(tc.Name)
	return fmt.Sprintf("%s\n{\"name\": %s, \"arguments\": %s}\n```", toolFence, name, args)
}
