package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// reasoningPrefixes name OpenAI models that take max_completion_tokens
// instead of max_tokens.
var reasoningPrefixes = []string{"o1", "o3", "o4", "gpt-5", "gpt-6"}

// emptyToolResult stands in for a tool result without output, which some
// servers reject as a missing content field.
const emptyToolResult = "(no output)"

// buildRequest maps req to go-openai's streamed request for model, applying
// the text tool protocol when native tools are off.
func (c *OpenAI) buildRequest(req Request, model string) (openai.ChatCompletionRequest, error) {
	for _, t := range req.Tools {
		if strings.TrimSpace(t.Name) == "" {
			return openai.ChatCompletionRequest{}, fmt.Errorf("provider: a tool has no name")
		}
		if len(t.Parameters) > 0 && !json.Valid(t.Parameters) {
			return openai.ChatCompletionRequest{}, fmt.Errorf("provider: tool %q: parameters are not valid JSON", t.Name)
		}
	}
	msgs := req.Messages
	if !c.cfg.NativeTools {
		msgs = textProtocolMessages(msgs, req.Tools)
	}
	out := openai.ChatCompletionRequest{
		Model:         model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if req.MaxTokens > 0 {
		if hasAnyPrefix(model, reasoningPrefixes) {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			out.MaxTokens = req.MaxTokens
		}
	}
	for _, m := range msgs {
		out.Messages = append(out.Messages, toOpenAIMessage(m))
	}
	if c.cfg.NativeTools {
		for _, t := range req.Tools {
			out.Tools = append(out.Tools, toOpenAITool(t))
		}
	}
	return out, nil
}

// toOpenAIMessage maps one message, tool calls and tool results included.
func toOpenAIMessage(m Message) openai.ChatCompletionMessage {
	om := openai.ChatCompletionMessage{
		Role:       m.Role,
		Content:    m.Content,
		Name:       m.Name,
		ToolCallID: m.ToolCallID,
	}
	if m.Role == openai.ChatMessageRoleTool && m.Content == "" {
		om.Content = emptyToolResult
	}
	for _, tc := range m.ToolCalls {
		om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
			ID:   tc.ID,
			Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{
				Name:      tc.Name,
				Arguments: argumentsOrEmpty(tc.Arguments),
			},
		})
	}
	return om
}

// toOpenAITool maps one tool to a function definition.
func toOpenAITool(t ToolSpec) openai.Tool {
	params := t.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return openai.Tool{
		Type: openai.ToolTypeFunction,
		Function: &openai.FunctionDefinition{
			Name:        t.Name,
			Description: t.Description,
			Parameters:  params,
		},
	}
}

// argumentsOrEmpty returns args, or an empty JSON object when blank.
func argumentsOrEmpty(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
