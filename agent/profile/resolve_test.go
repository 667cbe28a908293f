package profile

import (
	"testing"
	"time"
)

func TestResolveBuiltins(t *testing.T) {
	const (
		openai = OpenAIBaseURL
		router = OpenRouterBaseURL
		ollama = OllamaBaseURL
		vllm   = "http://localhost:8000/v1"
	)
	tests := []struct {
		model, baseURL string
		wantID         string
		wantWindow     int
		wantEnvelope   string
		wantProvider   string
	}{
		{"gpt-4o", openai, "gpt-4o", 128000, EnvelopeNative, "openai"},
		{"GPT-4o", openai, "gpt-4o", 128000, EnvelopeNative, "openai"},
		{"gpt-4o-2024-08-06", openai, "gpt-4o-*", 128000, EnvelopeNative, "openai"},
		{"gpt-4o-mini-2024-07-18", openai, "gpt-4o-mini-*", 128000, EnvelopeNative, "openai"},
		{"gpt-4.1-mini", openai, "gpt-4.1-mini", 1047576, EnvelopeNative, "openai"},
		{"o3", openai, "o3", 200000, EnvelopeNative, "openai"},
		{"o4-mini", "", "o4-mini", 200000, EnvelopeNative, "openai"},
		{"gpt-5", openai, "gpt-5", 400000, EnvelopeNative, "openai"},
		{"gpt-5-mini", openai, "gpt-5-mini", 400000, EnvelopeNative, "openai"},
		{"openai/gpt-4.1", router, "openai/gpt-4.1", 1047576, EnvelopeNative, "openrouter"},
		{"anthropic/claude-sonnet-4", router, "anthropic/claude-sonnet-4", 200000, EnvelopeNative, "openrouter"},
		{"anthropic/claude-3.5-haiku", router, "anthropic/*", 200000, EnvelopeNative, "openrouter"},
		{"google/gemini-2.5-pro", router, "google/gemini-2.5-pro", 1048576, EnvelopeNative, "openrouter"},
		{"meta-llama/llama-3.3-70b-instruct:free", router, "openrouter/*", 128000, EnvelopeNative, "openrouter"},
		{"openrouter/auto", "", "openrouter/*", 128000, EnvelopeNative, "openrouter"},
		{"mistralai/mistral-large", "", "*/*", 128000, EnvelopeNative, "openrouter"},
		{"Qwen/Qwen2.5-Coder-32B-Instruct", vllm, FallbackID, 32768, EnvelopeNative, ""},
		{"Qwen/Qwen3-32B", "https://gpu-box:8000/v1", FallbackID, 32768, EnvelopeNative, ""},
		{"Qwen/Qwen3-32B", "https://10.0.0.5/v1", FallbackID, 32768, EnvelopeNative, ""},
		{"qwen/qwen3-32b", "https://api.together.xyz/v1", "*/*", 128000, EnvelopeNative, "openrouter"},
		{"qwen2.5-coder:7b", ollama, "qwen2.5-coder", 32768, EnvelopeText, "ollama"},
		{"qwen2.5-coder", "", "qwen2.5-coder", 32768, EnvelopeText, "ollama"},
		{"qwen3:8b", ollama, "qwen3", 32768, EnvelopeNative, "ollama"},
		{"ollama/llama3.1:8b", "", "llama3.1", 32768, EnvelopeNative, "ollama"},
		{"llama3.2:3b", ollama, "llama3.2", 32768, EnvelopeNative, "ollama"},
		{"llama3.3", ollama, "llama3.3", 32768, EnvelopeNative, "ollama"},
		{"deepseek-coder-v2:16b", ollama, "deepseek-coder-v2", 32768, EnvelopeText, "ollama"},
		{"mistral:7b", "http://127.0.0.1:11434/v1", "ollama/*", 32768, EnvelopeText, "ollama"},
		{"ollama/phi4", "", "ollama/*", 32768, EnvelopeText, "ollama"},
		{"hf.co/bartowski/Some-GGUF:Q4_K_M", ollama, "ollama/*", 32768, EnvelopeText, "ollama"},
		{"brand-new-model", "https://api.example.com/v1", FallbackID, 32768, EnvelopeNative, ""},
		{"", "", FallbackID, 32768, EnvelopeNative, ""},
	}
	for _, tt := range tests {
		t.Run(tt.model+"@"+tt.baseURL, func(t *testing.T) {
			p := Resolve(tt.model, tt.baseURL, nil)
			if p.ID != tt.wantID || p.ContextWindow != tt.wantWindow || p.Envelope != tt.wantEnvelope || p.Provider != tt.wantProvider {
				t.Errorf("Resolve = %+v, want id %q window %d envelope %q provider %q",
					p, tt.wantID, tt.wantWindow, tt.wantEnvelope, tt.wantProvider)
			}
			if p.ToolCalls != (p.Envelope == EnvelopeNative) || p.Timeout <= 0 || p.PromptBudget() <= 0 {
				t.Errorf("inconsistent profile %+v", p)
			}
		})
	}
}

func TestResolveFallback(t *testing.T) {
	p := Resolve("unknown", "https://api.example.com/v1", nil)
	want := Profile{ID: FallbackID, ContextWindow: 32768, CompletionReserve: 4096,
		Timeout: Duration(120 * time.Second), ToolCalls: true, Envelope: EnvelopeNative}
	if p != want {
		t.Errorf("fallback = %+v, want %+v", p, want)
	}
}

func TestResolveOverrides(t *testing.T) {
	tests := []struct {
		name           string
		model, baseURL string
		overrides      []Profile
		want           Profile
	}{
		{
			name:  "exact override fills the rest from the built-in",
			model: "gpt-4o", baseURL: OpenAIBaseURL,
			overrides: []Profile{{ID: "gpt-4o", ContextWindow: 64000}},
			want: Profile{ID: "gpt-4o", Provider: "openai", BaseURL: OpenAIBaseURL, ContextWindow: 64000,
				CompletionReserve: 16384, Timeout: Duration(120 * time.Second), ToolCalls: true, Envelope: EnvelopeNative},
		},
		{
			name:  "override pattern beats a built-in exact id",
			model: "qwen3:8b", baseURL: OllamaBaseURL,
			overrides: []Profile{{ID: "ollama/*", ContextWindow: 8192}},
			want: Profile{ID: "ollama/*", Provider: "ollama", BaseURL: OllamaBaseURL, ContextWindow: 8192,
				CompletionReserve: 2048, Timeout: Duration(300 * time.Second), ToolCalls: true, Envelope: EnvelopeNative},
		},
		{
			name:  "later override wins",
			model: "my-model", baseURL: "http://gpu-box:8000/v1",
			overrides: []Profile{
				{ID: "my-model", ContextWindow: 1000, CompletionReserve: 100},
				{ID: "My-Model", ContextWindow: 2000, CompletionReserve: 200},
			},
			want: Profile{ID: "My-Model", ContextWindow: 2000, CompletionReserve: 200,
				Timeout: Duration(120 * time.Second), ToolCalls: true, Envelope: EnvelopeNative},
		},
		{
			name:  "exact override beats a longer override pattern",
			model: "my-model", baseURL: "",
			overrides: []Profile{
				{ID: "my-model", ContextWindow: 1000, CompletionReserve: 100},
				{ID: "my-mod*", ContextWindow: 2000, CompletionReserve: 200},
			},
			want: Profile{ID: "my-model", ContextWindow: 1000, CompletionReserve: 100,
				Timeout: Duration(120 * time.Second), ToolCalls: true, Envelope: EnvelopeNative},
		},
		{
			name:  "override switches to the text envelope",
			model: "gpt-4o", baseURL: OpenAIBaseURL,
			overrides: []Profile{{ID: "gpt-*", Envelope: EnvelopeText, Timeout: Duration(90 * time.Second)}},
			want: Profile{ID: "gpt-*", Provider: "openai", BaseURL: OpenAIBaseURL, ContextWindow: 128000,
				CompletionReserve: 16384, Timeout: Duration(90 * time.Second), Envelope: EnvelopeText},
		},
		{
			name:  "tool_calls alone selects the native envelope",
			model: "mistral:7b", baseURL: OllamaBaseURL,
			overrides: []Profile{{ID: "mistral", ToolCalls: true}},
			want: Profile{ID: "mistral", Provider: "ollama", BaseURL: OllamaBaseURL, ContextWindow: 32768,
				CompletionReserve: 4096, Timeout: Duration(300 * time.Second), ToolCalls: true, Envelope: EnvelopeNative},
		},
		{
			name:  "unmatched overrides are ignored",
			model: "o3", baseURL: OpenAIBaseURL,
			overrides: []Profile{{ID: "claude-*", ContextWindow: 5}},
			want:      Resolve("o3", OpenAIBaseURL, nil),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Resolve(tt.model, tt.baseURL, tt.overrides); got != tt.want {
				t.Errorf("Resolve =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"ollama/*", "ollama/qwen3:8b", true},
		{"ollama/*", "ollamaqwen", false},
		{"*/*", "a/b/c", true},
		{"*/*", "abc", false},
		{"gpt-4o-*", "gpt-4o", false},
		{"a*b*c", "axxbyyc", true},
		{"a*a", "a", false},
		{"exact", "exact", true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.name); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %t, want %t", tt.pattern, tt.name, got, tt.want)
		}
	}
}
