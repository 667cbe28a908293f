package provider

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"absent", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"capped seconds", map[string]string{"Retry-After": "600"}, time.Minute, true},
		{"http date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"capped date", map[string]string{"Retry-After": now.Add(time.Hour).Format(http.TimeFormat)}, time.Minute, true},
		{"milliseconds", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("retryAfter = %v, %t; want %v, %t", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoffBounds(t *testing.T) {
	tests := []struct {
		attempt int
		ceiling time.Duration
	}{
		{1, 500 * time.Millisecond},
		{2, time.Second},
		{4, 4 * time.Second},
		{6, 16 * time.Second},
		{7, 20 * time.Second},
		{40, 20 * time.Second},
	}
	for _, tt := range tests {
		for range 200 {
			if d := backoff(tt.attempt); d < 0 || d >= tt.ceiling {
				t.Fatalf("backoff(%d) = %v, want in [0, %v)", tt.attempt, d, tt.ceiling)
			}
		}
	}
}

func TestAccumulatorToolCallsWithoutIndex(t *testing.T) {
	idx := func(i int) *int { return &i }
	chunks := []openai.ChatCompletionStreamResponse{
		{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{
			{ID: "a", Function: openai.FunctionCall{Name: "one", Arguments: `{"x":1}`}},
			{ID: "b", Function: openai.FunctionCall{Name: "two"}},
		}}}}},
		{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{
			{Function: openai.FunctionCall{Arguments: `{"y":2}`}},
		}}}}},
		{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{
			{Index: idx(5), Function: openai.FunctionCall{Name: "three"}},
		}}, FinishReason: openai.FinishReasonToolCalls}}},
	}
	acc := accumulator{byIndex: map[int]int{}}
	for _, c := range chunks {
		acc.add(c, func(string) {})
	}
	want := []ToolCall{
		{ID: "a", Name: "one", Arguments: `{"x":1}`},
		{ID: "b", Name: "two", Arguments: `{"y":2}`},
		{ID: "call_3", Name: "three", Arguments: `{}`},
	}
	if got := acc.response(); !reflect.DeepEqual(got.ToolCalls, want) || got.FinishReason != "tool_calls" {
		t.Errorf("response = %+v, want calls %+v", got, want)
	}
}

func TestTextProtocolMessages(t *testing.T) {
	tools := []ToolSpec{{Name: "ls", Description: "List."}}
	in := []Message{
		{Role: "user", Content: "list twice"},
		{Role: "assistant", Content: "Sure.", ToolCalls: []ToolCall{
			{ID: "c1", Name: "ls", Arguments: `{"dir":"a"}`},
			{ID: "c2", Name: "ls", Arguments: ""},
		}},
		{Role: "tool", ToolCallID: "c1", Content: "x.go"},
		{Role: "tool", ToolCallID: "c2", Name: "ls"},
	}
	got := textProtocolMessages(in, tools)
	want := []Message{
		{Role: "system", Content: ToolProtocolPrompt(tools)},
		{Role: "user", Content: "list twice"},
		{Role: "assistant", Content: "Sure.\n\n```tool\n{\"name\": \"ls\", \"arguments\": {\"dir\":\"a\"}}\n```\n\n```tool\n{\"name\": \"ls\", \"arguments\": {}}\n```"},
		{Role: "user", Content: "Tool result for ls (c1):\nx.go\n\nTool result for ls (c2):\n(no output)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages =\n%+v\nwant\n%+v", got, want)
	}
	calls, _ := ParseTextToolCalls(got[2].Content)
	if len(calls) != 2 || calls[0].Arguments != `{"dir":"a"}` {
		t.Errorf("rendered calls do not parse back: %+v", calls)
	}
}
