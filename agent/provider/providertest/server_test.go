package providertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
)

// post sends a chat completions body and returns the status and body.
func post(t *testing.T, s *Server, body string, bearer string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// sseData returns the data payloads of an SSE body.
func sseData(body string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestStreamShapes(t *testing.T) {
	tests := []struct {
		name     string
		step     Step
		body     string
		contains []string
		absent   []string
		last     string
	}{
		{
			name:     "text with usage",
			step:     Step{Text: "abcdefghij", ChunkSize: 4, Usage: &provider.Usage{PromptTokens: 3, CompletionTokens: 2, CachedTokens: 1}},
			body:     `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`,
			contains: []string{`"content":"abcd"`, `"content":"ij"`, `"finish_reason":"stop"`, `"cached_tokens":1`},
			last:     "[DONE]",
		},
		{
			name:     "cached tokens left out when not reported",
			step:     Step{Text: "hi", Usage: &provider.Usage{PromptTokens: 3}},
			body:     `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`,
			contains: []string{`"prompt_tokens":3`},
			absent:   []string{`prompt_tokens_details`},
			last:     "[DONE]",
		},
		{
			name:     "zero cached tokens reported",
			step:     Step{Text: "hi", Usage: &provider.Usage{PromptTokens: 3, CacheReported: true}},
			body:     `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`,
			contains: []string{`"prompt_tokens_details":{"cached_tokens":0}`},
			last:     "[DONE]",
		},
		{
			name:   "usage omitted unless asked",
			step:   Step{Text: "hi", Usage: &provider.Usage{PromptTokens: 3}},
			body:   `{"model":"m","stream":true,"messages":[]}`,
			absent: []string{`"usage"`},
			last:   "[DONE]",
		},
		{
			name: "tool calls",
			step: ToolStep(provider.ToolCall{ID: "call_1", Name: "f", Arguments: `{"a":"0123456789"}`}),
			body: `{"model":"m","stream":true,"messages":[]}`,
			contains: []string{
				`"tool_calls":[{"function":{"arguments":"","name":"f"},"id":"call_1","index":0,"type":"function"}]`,
				`"tool_calls":[{"function":{"arguments":"{\"a\":\"01"},"index":0}]`,
				`"finish_reason":"tool_calls"`,
			},
			last: "[DONE]",
		},
		{
			name:   "cut",
			step:   Step{Text: "abcdefghijklmnop", CutAfter: 2},
			body:   `{"model":"m","stream":true,"messages":[]}`,
			absent: []string{"[DONE]", `"content":"ijklmnop"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, tt.step)
			status, body, err := post(t, s, tt.body, "")
			if status != http.StatusOK {
				t.Fatalf("status = %d", status)
			}
			if tt.last == "" && err == nil {
				t.Error("cut stream read without error")
			}
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("stream lacks %s:\n%s", want, body)
				}
			}
			for _, bad := range tt.absent {
				if strings.Contains(body, bad) {
					t.Errorf("stream has %s:\n%s", bad, body)
				}
			}
			if data := sseData(body); tt.last != "" && (len(data) == 0 || data[len(data)-1] != tt.last) {
				t.Errorf("last event = %v, want %s", data, tt.last)
			}
		})
	}
}

func TestNonStreamingAndErrors(t *testing.T) {
	s := New(t,
		Step{Text: "whole", Usage: &provider.Usage{PromptTokens: 5, CompletionTokens: 1}},
		Step{Status: 429, RetryAfter: "3"},
	)
	status, body, _ := post(t, s, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "secret")
	var got struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || status != 200 {
		t.Fatalf("status %d, body %s: %v", status, body, err)
	}
	if got.Choices[0].Message.Content != "whole" || got.Choices[0].FinishReason != "stop" || got.Usage.PromptTokens != 5 {
		t.Errorf("completion = %+v", got)
	}
	if status, body, _ = post(t, s, `{"model":"m","messages":[]}`, ""); status != 429 || !strings.Contains(body, `"error"`) {
		t.Errorf("second answer = %d %s, want a 429 error", status, body)
	}
	if status, body, _ = post(t, s, `{"model":"m","messages":[]}`, ""); status != 500 || !strings.Contains(body, "no scripted step left for request 3") {
		t.Errorf("third answer = %d %s, want the out-of-steps 500", status, body)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || !reqs[0].Bearer || reqs[1].Bearer || reqs[0].Messages[0].Content != "hi" {
		t.Fatalf("requests = %+v", reqs)
	}
	for _, r := range reqs {
		if r.Header.Get("Authorization") != "" || bytes.Contains(r.Body, []byte("secret")) {
			t.Errorf("request kept the bearer value: %+v", r)
		}
	}
}

// TestInvalidArgumentsAreRefused checks the strict parsing of earlier
// tool calls: arguments that are not a JSON object get a 400 and consume
// no step, as vLLM or llama-server refuse them.
func TestInvalidArgumentsAreRefused(t *testing.T) {
	s := New(t, TextStep("ok"))
	call := func(args string) string {
		raw, _ := json.Marshal(args)
		return `{"model":"m","messages":[{"role":"user","content":"hi"},` +
			`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"write_file","arguments":` + string(raw) + `}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"done"}]}`
	}
	for _, bad := range []string{`{"path":"a.go","content":"pack`, `null`, `"text"`, ``} {
		status, body, _ := post(t, s, call(bad), "")
		if status != http.StatusBadRequest || !strings.Contains(body, "not a JSON object") {
			t.Errorf("arguments %q: %d %s, want a 400", bad, status, body)
		}
	}
	if status, body, _ := post(t, s, call(`{"ctx_ref":"ctx:0123456789ab"}`), ""); status != http.StatusOK {
		t.Errorf("valid arguments: %d %s", status, body)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests recorded, want only the valid one", n)
	}
}

func TestModelsEndpoint(t *testing.T) {
	s := New(t)
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) != 1 || list.Data[0].ID != Model {
		t.Errorf("models = %+v, %v", list, err)
	}
}

// recordingTB captures Errorf calls instead of failing the test.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestMatchFailureIsReported(t *testing.T) {
	tb := &recordingTB{TB: t}
	s := New(tb, Step{Text: "x", Match: func(RecordedRequest) error { return errors.New("wrong model") }})
	s.Push(TextStep("y"))
	post(t, s, `{"model":"m","stream":true,"messages":[]}`, "")
	post(t, s, `{"model":"m","stream":true,"messages":[]}`, "")
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "wrong model") {
		t.Errorf("reported errors = %q, want one naming the mismatch", tb.errs)
	}
}
