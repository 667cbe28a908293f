package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

func TestChatErrorMapping(t *testing.T) {
	tests := []struct {
		name     string
		step     providertest.Step
		model    string
		apiKey   string
		want     error
		mentions []string
	}{
		{
			name: "OpenAI context overflow",
			step: providertest.Step{Status: 400, ErrorBody: `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
			want: provider.ErrContextOverflow, mentions: []string{"8192", "shorten"},
		},
		{
			name: "vLLM context overflow",
			step: providertest.Step{Status: 400, ErrorBody: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}`},
			want: provider.ErrContextOverflow, mentions: []string{"4096"},
		},
		{
			name: "llama-server context overflow",
			step: providertest.Step{Status: 400, ErrorBody: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`},
			want: provider.ErrContextOverflow,
		},
		{
			name: "Ollama context overflow",
			step: providertest.Step{Status: 500, ErrorBody: `{"error":"prompt too long; exceeded max context length by 512 tokens"}`},
			want: provider.ErrContextOverflow,
		},
		{
			name: "gateway too many tokens",
			step: providertest.Step{Status: 413, ErrorBody: `{"error":{"message":"Request has too many tokens for this model's context window"}}`},
			want: provider.ErrContextOverflow,
		},
		{
			name: "401 echoing the key",
			step: providertest.Step{Status: 401, ErrorBody: `{"error":{"message":"Incorrect API key provided: ` + testKey + `.","type":"invalid_request_error","code":"invalid_api_key"}}`},
			want: provider.ErrUnauthorized, mentions: []string{"KWS_API_KEY", "OPENAI_API_KEY"},
		},
		{
			name:   "403 without a key",
			step:   providertest.Step{Status: 403},
			apiKey: "-", want: provider.ErrUnauthorized, mentions: []string{"no API key is set"},
		},
		{
			name:  "OpenAI unknown model",
			step:  providertest.Step{Status: 404, ErrorBody: "{\"error\":{\"message\":\"The model `gpt-nope` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"code\":\"model_not_found\"}}"},
			model: "gpt-nope", want: provider.ErrModelNotFound, mentions: []string{`"gpt-nope"`, "KWS_MODEL"},
		},
		{
			name:  "Ollama unknown model",
			step:  providertest.Step{Status: 404, ErrorBody: `{"error":"model \"qwen9:7b\" not found, try pulling it first"}`},
			model: "qwen9:7b", want: provider.ErrModelNotFound, mentions: []string{"qwen9:7b"},
		},
		{
			name:  "unknown model as 400",
			step:  providertest.Step{Status: 400, ErrorBody: `{"error":{"message":"model not found: foo"}}`},
			model: "foo", want: provider.ErrModelNotFound,
		},
		{
			// A placeholder key for a local server is not cut out of the
			// message's words.
			name:   "short placeholder key",
			step:   providertest.Step{Status: 400, ErrorBody: `{"error":{"message":"upstream exploded","type":"invalid_request_error"}}`},
			apiKey: "x", mentions: []string{"upstream exploded"},
		},
		{
			name:     "other 400",
			step:     providertest.Step{Status: 400, ErrorBody: `{"error":{"message":"temperature must be below 2","type":"invalid_request_error"}}`},
			mentions: []string{"temperature must be below 2", "not retried"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(c *provider.Config) {
				switch tt.apiKey {
				case "-":
					c.APIKey = ""
				case "":
				default:
					c.APIKey = tt.apiKey
				}
			}, tt.step)
			req := userRequest("go")
			req.Model = tt.model
			res, err := h.chat(t, req)
			if err == nil {
				t.Fatal("Chat succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want errors.Is %v", err, tt.want)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the API key: %v", err)
			}
			if res.Attempts != 1 || len(h.srv.Requests()) != 1 || len(h.sleeps) != 0 {
				t.Errorf("attempts = %d, requests = %d, sleeps = %v; want no retry", res.Attempts, len(h.srv.Requests()), h.sleeps)
			}
		})
	}
}

func TestChatUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	var sleeps []time.Duration
	c, err := provider.New(provider.Config{BaseURL: base, Model: "m", Sleep: func(d time.Duration) { sleeps = append(sleeps, d) }})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := c.Chat(context.Background(), userRequest("go"), nil)
	if !errors.Is(err, provider.ErrUnreachable) {
		t.Fatalf("error = %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), base) {
		t.Errorf("error %q does not name the base URL %s", err, base)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second || res.Attempts != 1 || len(sleeps) != 0 {
		t.Errorf("took %v over %d attempts (sleeps %v), want a quick failure", elapsed, res.Attempts, sleeps)
	}
}

func TestChatNeedsAModel(t *testing.T) {
	c, err := provider.New(provider.Config{BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), userRequest("go"), nil); err == nil || !strings.Contains(err.Error(), "KWS_MODEL") {
		t.Errorf("error = %v, want a hint to set KWS_MODEL", err)
	}
}

// hostileText carries a clipboard write (OSC 52), a window title (OSC 0),
// a screen clear (CSI 2J), a C1 CSI, a bell and a line break.
const hostileText = "bad\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J\u009b31m\x07\nrequest"

// TestChatErrorsAreSafeToPrint checks that a server's error text reaches
// the caller without terminal escapes or control characters, on one line,
// bounded, and without the API key even when an escape splits it.
func TestChatErrorsAreSafeToPrint(t *testing.T) {
	split := testKey[:6] + "\x1b[0m" + testKey[6:]
	tests := []struct {
		name string
		step providertest.Step
	}{
		{"400 OpenAI shape", providertest.Step{Status: 400, ErrorBody: jsonError(hostileText)}},
		{"401 echoing a split key", providertest.Step{Status: 401, ErrorBody: jsonError(hostileText + " key " + split)}},
		{"404 Ollama shape", providertest.Step{Status: 404, ErrorBody: errorBody(map[string]any{"error": hostileText})}},
		{"429", providertest.Step{Status: 429, ErrorBody: jsonError(hostileText)}},
		{"500 plain text", providertest.Step{Status: 500, ErrorBody: hostileText + strings.Repeat("x", 5000)}},
		{"422 detail", providertest.Step{Status: 422, ErrorBody: errorBody(map[string]any{"detail": hostileText})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := []providertest.Step{tt.step}
			for range 8 {
				steps = append(steps, tt.step)
			}
			h := newHarness(t, nil, steps...)
			_, err := h.chat(t, userRequest("go"))
			if err == nil {
				t.Fatal("Chat succeeded, want an error")
			}
			msg := err.Error()
			if i := strings.IndexFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }); i >= 0 {
				t.Errorf("error holds control byte %q at %d: %q", msg[i], i, msg)
			}
			if !strings.Contains(msg, "bad") || strings.Contains(msg, testKey) {
				t.Errorf("error lost the message or leaks the key: %q", msg)
			}
			if n := len([]rune(msg)); n > 1000 {
				t.Errorf("error is %d runes long, want the server's text bounded", n)
			}
		})
	}
}

// jsonError is an OpenAI-shaped error body carrying msg.
func jsonError(msg string) string {
	return errorBody(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// errorBody encodes an error body built from maps and strings.
func errorBody(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
