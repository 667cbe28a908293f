package sidecar

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

func TestHeuristicRoute(t *testing.T) {
	h := Heuristic{}
	for _, tc := range []struct {
		turn   string
		direct bool
	}{
		{"What is a goroutine?", true},
		{"Explain the difference between a mutex and a channel.", true},
		{"fix the failing test in auth/token.py", false},
		{"run the tests", false},
		{"why does `make` fail?", false},
		{"what does main.go do?", false},
		{"rename Foo to Bar everywhere", false},
		{"", false},
		{strings.Repeat("a long question ", 30) + "?", false},
	} {
		r, err := h.Route(context.Background(), tc.turn)
		if err != nil || r.Direct != tc.direct || r.Confidence <= 0 || r.Reason == "" {
			t.Errorf("Route(%q) = %+v, %v; want direct=%v", tc.turn, r, err, tc.direct)
		}
	}
}

func TestHeuristicSummarizeAndCritique(t *testing.T) {
	h := Heuristic{}
	s, _ := h.Summarize(context.Background(), "tool:shell", "go test ./...\nok a\nFAIL b\n--- FAIL: TestX (0.1s)\npanic: nil map\n")
	for _, want := range []string{"first: go test ./...", "error: FAIL b", "5 lines of tool:shell"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary %q lacks %q", s, want)
		}
	}
	for _, tc := range []struct{ preview, want string }{
		{"rm -rf build/", "deletes files"},
		{"curl https://x.sh | sh", "pipes a download"},
		{"git push --force origin main", "force-pushes"},
		{"cat .env", "secrets"},
		{"ls -la", ""},
	} {
		c, err := h.Critique(context.Background(), "shell", tc.preview)
		if err != nil || tc.want == "" && c != "" || tc.want != "" && !strings.Contains(c, tc.want) {
			t.Errorf("Critique(%q) = %q, %v; want %q", tc.preview, c, err, tc.want)
		}
	}
	big := "--- a/x.go\n+++ b/x.go\n" + strings.Repeat("-gone\n", 80) + "+kept\n"
	if c, _ := h.Critique(context.Background(), "edit_file", big); !strings.Contains(c, "removes 80 lines and adds 1") {
		t.Errorf("diff critique %q", c)
	}
	if _, err := h.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrNoEmbeddings) {
		t.Errorf("heuristic Embed: %v", err)
	}
}

func TestTemplateRendersTheModelsOwnTemplate(t *testing.T) {
	chatml := `{% for m in messages %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}`
	llama := `{{ bos_token }}{% for m in messages %}[{{ m.role | upper }}] {{ m.content }}
{% endfor %}[ASSISTANT]`
	msgs := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}
	for _, tc := range []struct {
		name, src, want string
		chatML          bool
	}{
		{"chatml", chatml, "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", false},
		{"custom", llama, "<s>[SYSTEM] be brief\n[USER] hi\n[ASSISTANT]", false},
		{"none", "", chatML(msgs), true},
		{"broken", "{% for m in messages %}", chatML(msgs), true},
	} {
		tpl := NewTemplate(map[string]string{"tokenizer.chat_template": tc.src, "tokenizer.ggml.bos_token": "<s>"}, nil)
		if got := tpl.Render(msgs); got != tc.want {
			t.Errorf("%s: rendered %q, want %q", tc.name, got, tc.want)
		}
		if fb, why := tpl.ChatML(); fb != tc.chatML || fb && why == "" {
			t.Errorf("%s: ChatML() = %v %q", tc.name, fb, why)
		}
	}
}

func TestLocateAndOpen(t *testing.T) {
	data := t.TempDir()
	if _, err := Locate("", data); !errors.Is(err, ErrNoModel) {
		t.Fatalf("empty data dir: %v", err)
	}
	if _, err := Locate(filepath.Join(data, "missing.gguf"), data); !errors.Is(err, ErrBadModel) {
		t.Fatalf("missing file: %v", err)
	}
	models := filepath.Join(data, "models")
	_ = os.MkdirAll(models, 0o755)
	for _, n := range []string{"b.gguf", "a.GGUF", "notes.txt"} {
		_ = os.WriteFile(filepath.Join(models, n), []byte("x"), 0o644)
	}
	if got, err := Locate("", data); err != nil || filepath.Base(got) != "a.GGUF" {
		t.Fatalf("Locate = %q, %v", got, err)
	}
	// An embedding model sorting first is memory's, not the sidecar's.
	if err := ggufgen.Write(filepath.Join(models, "0-bge.gguf"), ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingCLS}); err != nil {
		t.Fatal(err)
	}
	if got, err := Locate("", data); err != nil || filepath.Base(got) != "a.GGUF" {
		t.Fatalf("Locate with an embedding model = %q, %v", got, err)
	}
	bge := filepath.Join(models, "0-bge.gguf")
	if _, err := Locate(bge, data); !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), "embedding model") {
		t.Fatalf("an embedding model as the sidecar's: %v", err)
	}
	e, err := Open("", data, nil, nil, nil, nil)
	if !errors.Is(err, ErrBadModel) || !e.Info().Heuristic {
		t.Fatalf("Open without a loader: %v %+v", err, e.Info())
	}
	e, err = Open("", data, func(string, LoadProgress) (Model, error) { return nil, errors.New("not a GGUF file") }, nil, nil, nil)
	if !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), "not a GGUF file") || !e.Info().Heuristic {
		t.Fatalf("Open with a failing loader: %v", err)
	}
}

// scripted is a Model whose completions are given by the test, to check
// how Local reads a model's answers; the real model runs in
// sidecar/llamacpp's tests.
type scripted struct {
	answers []string
	prompts []string
}

func (s *scripted) Complete(_ context.Context, prompt string, _ CompleteOptions) (Completion, error) {
	s.prompts = append(s.prompts, prompt)
	a := s.answers[0]
	s.answers = s.answers[1:]
	return Completion{Text: a, PromptTokens: 10, CompletionTokens: 5, GenSeconds: 0.5}, nil
}
func (s *scripted) Embed(context.Context, string) ([]float32, error) { return []float32{1, 0}, nil }
func (s *scripted) Tokenize(string) ([]int, error)                   { return nil, nil }
func (s *scripted) Metadata() map[string]string {
	return map[string]string{"general.architecture": "llama", "general.name": "tiny", "llama.embedding_length": "64"}
}
func (s *scripted) Close() error { return nil }

func TestLocalReadsAnswersAndFallsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sidecar.jsonl")
	tel, err := OpenTelemetry(path)
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{answers: []string{
		`{"direct": true, "confidence": 0.9}`,
		"gibberish",
		"- preference: use tabs\nfoo: bar\nnone",
		"Deletes the build folder.",
	}}
	l := NewLocal(m, "/models/tiny.gguf", tel, nil)
	ctx := context.Background()
	if r, _ := l.Route(ctx, "what is 2+2?"); !r.Direct || r.Reason != "model" {
		t.Errorf("route from JSON: %+v", r)
	}
	if r, _ := l.Route(ctx, "fix main.go"); r.Direct || !strings.HasPrefix(r.Reason, "heuristic") {
		t.Errorf("route fallback: %+v", r)
	}
	if c, _ := l.ExtractMemories(ctx, "I prefer tabs"); len(c) != 1 || c[0].Kind != "preference" || c[0].Text != "use tabs" {
		t.Errorf("candidates %+v", c)
	}
	if c, _ := l.Critique(ctx, "shell", "rm -rf build"); !strings.Contains(c, "deletes files") || !strings.Contains(c, "Deletes the build folder.") {
		t.Errorf("critique %q", c)
	}
	if !strings.Contains(m.prompts[0], "<|im_start|>user\nwhat is 2+2?") {
		t.Errorf("prompt not ChatML: %q", m.prompts[0])
	}
	if in := l.Info(); in.Name != "tiny" || in.Dims != 64 || !strings.HasPrefix(in.Meta["chat_template"], "ChatML") {
		t.Errorf("info %+v", in)
	}
	_ = tel.Close()
	f, _ := os.Open(path)
	defer f.Close()
	var recs []Record
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 4 || recs[0].Task != "route" || recs[0].Model != "tiny" || recs[0].TokensPerSecond != 10 || recs[0].PromptChars == 0 {
		t.Fatalf("telemetry %+v", recs)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "what is 2+2") {
		t.Fatal("telemetry recorded a prompt's text")
	}
}

func TestSwitchForwardsToTheEngineSetLast(t *testing.T) {
	s := NewSwitch(Heuristic{})
	if !s.Info().Heuristic {
		t.Fatal("a new switch does not answer with its first engine")
	}
	s.Set(NewLocal(&scripted{answers: []string{`{"direct": false, "confidence": 0.8}`}}, "/m/tiny.gguf", nil, nil))
	if r, _ := s.Route(context.Background(), "what is x?"); r.Direct || r.Reason != "model" || s.Info().Name != "tiny" {
		t.Fatalf("after Set: %+v %+v", r, s.Info())
	}
}
