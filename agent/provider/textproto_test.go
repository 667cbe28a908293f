package provider_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

func TestParseTextToolCalls(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		wantCalls []provider.ToolCall
		wantRest  string
	}{
		{
			name:     "plain text",
			text:     "Just an answer.\n```go\nfmt.Println(1)\n```\n",
			wantRest: "Just an answer.\n```go\nfmt.Println(1)\n```",
		},
		{
			name: "one call with text around",
			text: "Let me look.\n```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n```\nThen I'll decide.",
			wantCalls: []provider.ToolCall{
				{ID: "call_txt_1", Name: "read_file", Arguments: `{"path":"main.go"}`},
			},
			wantRest: "Let me look.\nThen I'll decide.",
		},
		{
			name: "two calls, arguments as a string and missing",
			text: "```tool\n{\"name\": \"grep\", \"arguments\": \"{\\\"pattern\\\": \\\"x\\\"}\"}\n```\n```tool\n{\"name\": \"list_dir\"}\n```\n",
			wantCalls: []provider.ToolCall{
				{ID: "call_txt_1", Name: "grep", Arguments: `{"pattern":"x"}`},
				{ID: "call_txt_2", Name: "list_dir", Arguments: `{}`},
			},
		},
		{
			name: "malformed block stays in the text",
			text: "```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": }\n```\n```tool\n{\"name\": \"ok\", \"arguments\": {}}\n```",
			wantCalls: []provider.ToolCall{
				{ID: "call_txt_1", Name: "ok", Arguments: `{}`},
			},
			wantRest: "```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": }\n```",
		},
		{
			name:     "block without a name stays",
			text:     "```tool\n{\"arguments\": {}}\n```",
			wantRest: "```tool\n{\"arguments\": {}}\n```",
		},
		{
			name:     "arguments that are not an object stay",
			text:     "```tool\n{\"name\": \"x\", \"arguments\": [1, 2]}\n```",
			wantRest: "```tool\n{\"name\": \"x\", \"arguments\": [1, 2]}\n```",
		},
		{
			name: "unclosed final block",
			text: "Reading.\n```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n",
			wantCalls: []provider.ToolCall{
				{ID: "call_txt_1", Name: "read_file", Arguments: `{"path":"a"}`},
			},
			wantRest: "Reading.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, rest := provider.ParseTextToolCalls(tt.text)
			if !reflect.DeepEqual(calls, tt.wantCalls) {
				t.Errorf("calls = %+v, want %+v", calls, tt.wantCalls)
			}
			if rest != tt.wantRest {
				t.Errorf("rest = %q, want %q", rest, tt.wantRest)
			}
		})
	}
}

func TestToolProtocolPrompt(t *testing.T) {
	if got := provider.ToolProtocolPrompt(nil); got != "" {
		t.Errorf("prompt without tools = %q, want empty", got)
	}
	p := provider.ToolProtocolPrompt([]provider.ToolSpec{
		{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{ "type": "object" }`)},
		{Name: "list_dir", Description: "List a directory."},
	})
	for _, want := range []string{"```tool", "## read_file", "Read a file.", `{"type":"object"}`, "## list_dir", "Tool result for"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

// TestTextProtocolRoundTrip runs two turns against a server that only
// speaks text: a call parsed from the answer, then its result sent back.
func TestTextProtocolRoundTrip(t *testing.T) {
	tools := []provider.ToolSpec{{
		Name: "read_file", Description: "Read a file.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
	}}
	first := providertest.TextStep("I'll read it.\n```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n```\n")
	first.Match = func(r providertest.RecordedRequest) error {
		if len(r.Tools) != 0 {
			return fmt.Errorf("tools sent natively: %+v", r.Tools)
		}
		if r.Messages[0].Role != "system" || !strings.HasPrefix(r.Messages[0].Content, "You are terse.") ||
			!strings.Contains(r.Messages[0].Content, "## read_file") {
			return fmt.Errorf("system message lacks the tool protocol: %q", r.Messages[0].Content)
		}
		return nil
	}
	second := providertest.TextStep("main.go is a tiny program.")
	second.Match = func(r providertest.RecordedRequest) error {
		if n := len(r.Messages); n != 4 {
			return fmt.Errorf("got %d messages, want 4", n)
		}
		asst, result := r.Messages[2], r.Messages[3]
		if asst.Role != "assistant" || len(asst.ToolCalls) != 0 || !strings.Contains(asst.Content, "```tool\n{\"name\": \"read_file\"") {
			return fmt.Errorf("assistant turn = %+v", asst)
		}
		want := "Tool result for read_file (call_txt_1):\npackage main"
		if result.Role != "user" || result.Content != want {
			return fmt.Errorf("tool result turn = %+v, want user %q", result, want)
		}
		return nil
	}
	h := newHarness(t, func(c *provider.Config) { c.NativeTools = false }, first, second)

	req := userRequest("what is main.go?")
	req.Tools = tools
	res, err := h.chat(t, req)
	if err != nil {
		t.Fatalf("first turn: %v", err)
	}
	wantCalls := []provider.ToolCall{{ID: "call_txt_1", Name: "read_file", Arguments: `{"path":"main.go"}`}}
	if !reflect.DeepEqual(res.ToolCalls, wantCalls) || res.Content != "I'll read it." || res.FinishReason != "tool_calls" {
		t.Fatalf("first turn = %+v", res)
	}

	req.Messages = append(req.Messages,
		provider.Message{Role: "assistant", Content: res.Content, ToolCalls: res.ToolCalls},
		provider.Message{Role: "tool", ToolCallID: "call_txt_1", Content: "package main"},
	)
	res, err = h.chat(t, req)
	if err != nil {
		t.Fatalf("second turn: %v", err)
	}
	if res.Content != "main.go is a tiny program." || len(res.ToolCalls) != 0 {
		t.Errorf("second turn = %+v", res)
	}
}
