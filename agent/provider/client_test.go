package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// testKey is a fake API key; tests check it never shows up in errors.
const testKey = "sk-test-secret-0123456789"

// harness is a client wired to a scripted server, recording deltas and
// retry waits.
type harness struct {
	srv    *providertest.Server
	client *provider.OpenAI
	deltas []provider.Delta
	sleeps []time.Duration
}

func newHarness(t *testing.T, configure func(*provider.Config), steps ...providertest.Step) *harness {
	t.Helper()
	h := &harness{srv: providertest.New(t, steps...)}
	cfg := provider.Config{
		BaseURL:     h.srv.URL(),
		APIKey:      testKey,
		Model:       providertest.Model,
		NativeTools: true,
		Timeout:     10 * time.Second,
		Sleep:       func(d time.Duration) { h.sleeps = append(h.sleeps, d) },
	}
	if configure != nil {
		configure(&cfg)
	}
	c, err := provider.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.client = c
	return h
}

func (h *harness) chat(t *testing.T, req provider.Request) (provider.Response, error) {
	t.Helper()
	return h.client.Chat(context.Background(), req, func(d provider.Delta) { h.deltas = append(h.deltas, d) })
}

// streamedText joins the deltas since the last restart.
func (h *harness) streamedText() string {
	var b strings.Builder
	for _, d := range h.deltas {
		if d.Restart {
			b.Reset()
		}
		b.WriteString(d.Text)
	}
	return b.String()
}

func userRequest(text string) provider.Request {
	return provider.Request{Messages: []provider.Message{
		{Role: "system", Content: "You are terse."},
		{Role: "user", Content: text},
	}}
}

func TestChatStreamsTextAndUsage(t *testing.T) {
	answer := "Hello there, this answer arrives in several pieces — with ünïcode."
	step := providertest.TextStep(answer)
	step.Usage = &provider.Usage{PromptTokens: 120, CompletionTokens: 17, CachedTokens: 64}
	h := newHarness(t, nil, step)

	res, err := h.chat(t, userRequest("hi"))
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := provider.Response{
		Content:      answer,
		Usage:        provider.Usage{PromptTokens: 120, CompletionTokens: 17, CachedTokens: 64, CacheReported: true},
		FinishReason: "stop",
		Attempts:     1,
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("response = %+v, want %+v", res, want)
	}
	if len(h.deltas) < 2 || h.streamedText() != answer {
		t.Errorf("deltas = %+v, want the answer in several pieces", h.deltas)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if !r.Stream || !r.IncludeUsage || !r.Bearer || r.Model != providertest.Model {
		t.Errorf("request stream=%t include_usage=%t bearer=%t model=%q", r.Stream, r.IncludeUsage, r.Bearer, r.Model)
	}
	if r.Header.Get("Authorization") != "" {
		t.Error("recorded headers kept the Authorization value")
	}
}

// TestUsageWithoutCacheDetails: a server that reports no
// prompt_tokens_details (no prompt cache, or an older llama-server) leaves
// the cached tokens unknown, not zero.
func TestUsageWithoutCacheDetails(t *testing.T) {
	step := providertest.TextStep("ok")
	step.Usage = &provider.Usage{PromptTokens: 50, CompletionTokens: 1}
	h := newHarness(t, nil, step)
	res, err := h.chat(t, userRequest("hi"))
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if want := (provider.Usage{PromptTokens: 50, CompletionTokens: 1}); res.Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
}

func TestChatParallelToolCalls(t *testing.T) {
	calls := []provider.ToolCall{
		{ID: "call_a", Name: "read_file", Arguments: `{"path":"agent/provider/types.go","max_lines":200}`},
		{ID: "call_b", Name: "grep", Arguments: `{"pattern":"func New","dir":"agent"}`},
	}
	step := providertest.ToolStep(calls...)
	step.ChunkSize = 5
	h := newHarness(t, nil, step)

	res, err := h.chat(t, userRequest("look around"))
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if !reflect.DeepEqual(res.ToolCalls, calls) {
		t.Errorf("tool calls = %+v, want %+v", res.ToolCalls, calls)
	}
	if res.FinishReason != "tool_calls" || res.Content != "" {
		t.Errorf("finish = %q, content = %q", res.FinishReason, res.Content)
	}
}

func TestChatSendsNativeMessagesAndTools(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	tools := []provider.ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: params}}
	msgs := []provider.Message{
		{Role: "system", Content: "sys"},
		{Role: "user", Content: "read main.go"},
		{Role: "assistant", ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		{Role: "tool", ToolCallID: "call_1", Content: "package main"},
	}
	h := newHarness(t, nil, providertest.TextStep("done"))
	if _, err := h.chat(t, provider.Request{Messages: msgs, Tools: tools, MaxTokens: 512}); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	r := h.srv.Requests()[0]
	if !reflect.DeepEqual(r.Messages, msgs) {
		t.Errorf("messages = %+v, want %+v", r.Messages, msgs)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "read_file" || r.Tools[0].Description != "Read a file." {
		t.Fatalf("tools = %+v", r.Tools)
	}
	var got, want any
	_ = json.Unmarshal(r.Tools[0].Parameters, &got)
	_ = json.Unmarshal(params, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parameters = %s, want %s", r.Tools[0].Parameters, params)
	}
	if r.MaxTokens != 512 {
		t.Errorf("max tokens = %d, want 512", r.MaxTokens)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name, baseURL, want string
	}{
		{"empty", "", "KWS_BASE_URL"},
		{"no scheme", "localhost:11434/v1", "http://"},
		{"ftp", "ftp://example.com/v1", "http://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.New(provider.Config{BaseURL: tt.baseURL})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New(%q) error = %v, want one mentioning %q", tt.baseURL, err, tt.want)
			}
		})
	}
}

func TestConfigStringHidesKey(t *testing.T) {
	cfg := provider.Config{BaseURL: "http://x/v1", APIKey: testKey}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg)} {
		if strings.Contains(s, testKey) {
			t.Errorf("formatted config leaks the key: %s", s)
		}
	}
}

func TestChatSendsSamplingOnlyWhenSet(t *testing.T) {
	zero, half := 0.0, 0.5
	tests := []struct {
		name        string
		temperature *float64
		topP        *float64
	}{
		{"unset", nil, nil},
		{"greedy temperature 0 and top_p", &zero, &half},
		{"top_p alone", nil, &half},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(c *provider.Config) { c.Temperature, c.TopP = tt.temperature, tt.topP },
				providertest.TextStep("ok"))
			if _, err := h.chat(t, provider.Request{Messages: []provider.Message{{Role: "user", Content: "hi"}}}); err != nil {
				t.Fatalf("Chat: %v", err)
			}
			r := h.srv.Requests()[0]
			var body map[string]json.RawMessage
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			for key, want := range map[string]*float64{"temperature": tt.temperature, "top_p": tt.topP} {
				raw, present := body[key]
				switch {
				case want == nil && present:
					t.Errorf("%s = %s in the body, want it left out", key, raw)
				case want != nil && !present:
					t.Errorf("%s missing from the body %s, want %v", key, r.Body, *want)
				case want != nil && string(raw) != strconv.FormatFloat(*want, 'g', -1, 64):
					t.Errorf("%s = %s, want %v", key, raw, *want)
				}
			}
			if !reflect.DeepEqual(r.Temperature, tt.temperature) || !reflect.DeepEqual(r.TopP, tt.topP) {
				t.Errorf("recorded temperature, top_p = %v, %v", r.Temperature, r.TopP)
			}
		})
	}
}
