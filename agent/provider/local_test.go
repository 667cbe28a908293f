package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kwsdev/kws/sidecar"
)

// cannedModel answers every completion with text and records the prompt;
// the real GGUF path runs in sidecar/llamacpp's tests.
type cannedModel struct {
	text   string
	prompt string
}

func (m *cannedModel) Complete(_ context.Context, prompt string, _ sidecar.CompleteOptions) (sidecar.Completion, error) {
	m.prompt = prompt
	return sidecar.Completion{Text: m.text, PromptTokens: 40, CompletionTokens: 9}, nil
}
func (m *cannedModel) Embed(context.Context, string) ([]float32, error) { return nil, nil }
func (m *cannedModel) Tokenize(string) ([]int, error)                   { return nil, nil }
func (m *cannedModel) Metadata() map[string]string                      { return map[string]string{} }
func (m *cannedModel) Close() error                                     { return nil }

func TestLocalClientTextToolsOnTheSidecarModel(t *testing.T) {
	m := &cannedModel{text: "I'll look.\n```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n```"}
	var engine sidecar.Engine = sidecar.Heuristic{}
	c := NewLocal(func() sidecar.Engine { return engine })
	req := Request{Messages: []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "read a.go"}},
		Tools: []ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: []byte(`{"type":"object"}`)}}}
	if _, err := c.Chat(context.Background(), req, nil); !errors.Is(err, ErrNoLocalModel) {
		t.Fatalf("before the model loads: %v", err)
	}
	engine = sidecar.NewLocal(m, "/m/tiny.gguf", nil, nil)
	var streamed string
	res, err := c.Chat(context.Background(), req, func(d Delta) { streamed += d.Text })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "read_file" || !strings.Contains(res.ToolCalls[0].Arguments, "a.go") {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	if res.Usage.PromptTokens != 40 || streamed == "" {
		t.Fatalf("usage %+v, streamed %q", res.Usage, streamed)
	}
	if !strings.Contains(m.prompt, "<|im_start|>system\nbe brief") || !strings.Contains(m.prompt, "## read_file") {
		t.Fatalf("prompt lacks the system message or the tool protocol: %q", m.prompt)
	}
}
