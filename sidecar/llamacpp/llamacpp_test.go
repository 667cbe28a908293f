package llamacpp

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

// tinyModel writes the generated test model with cfg to a temporary
// directory and returns its path.
func tinyModel(t testing.TB, cfg ggufgen.Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := ggufgen.Write(path, cfg); err != nil {
		t.Fatal(err)
	}
	return path
}

// load loads the model at path and closes it when the test ends. The tiny
// model runs on one thread unless opts say otherwise: a second thread buys
// nothing on it and stalls decoding when the machine is busy.
func load(t testing.TB, path string, opts Options) *Model {
	t.Helper()
	if opts.Threads == 0 {
		opts.Threads = 1
	}
	m, err := Load(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// complete runs a greedy completion that must succeed.
func complete(t testing.TB, m *Model, prompt string, opts sidecar.CompleteOptions) sidecar.Completion {
	t.Helper()
	c, err := m.Complete(context.Background(), prompt, opts)
	if err != nil {
		t.Fatalf("Complete(%q): %v", prompt, err)
	}
	return c
}

func TestLoadAndMetadata(t *testing.T) {
	path := tinyModel(t, ggufgen.Config{ChatTemplate: ggufgen.ChatML})
	var progress []float32
	m := load(t, path, Options{Progress: func(p float32) { progress = append(progress, p) }})
	if len(progress) < 2 || progress[len(progress)-1] != 1 || !slices.IsSorted(progress) {
		t.Errorf("progress %v, want rising to 1", progress)
	}
	meta := m.Metadata()
	for k, want := range map[string]string{
		"general.architecture":         "llama",
		"llama.embedding_length":       "64",
		"tokenizer.chat_template":      ggufgen.ChatML,
		"tokenizer.ggml.add_bos_token": "true",
	} {
		if meta[k] != want {
			t.Errorf("%s = %q, want %q", k, meta[k], want)
		}
	}
	if s := meta["tokenizer.ggml.tokens"]; !strings.HasSuffix(s, " × string]") {
		t.Errorf("the token list is not summarised: %.80s", s)
	}
	meta["general.architecture"] = "changed"
	if m.Metadata()["general.architecture"] != "llama" {
		t.Error("Metadata returns the model's own map")
	}
}

func TestTokenize(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{}), Options{})
	toks, err := m.Tokenize("hello world")
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, tok := range toks {
		text += m.model.TokenToPiece(tok)
	}
	if len(toks) != 2 || text != " hello world" {
		t.Errorf("tokens %v read back as %q, want two words and \" hello world\"", toks, text)
	}
	// Characters outside the vocabulary fall back to byte tokens.
	toks, _ = m.Tokenize("héllo ✓")
	text = ""
	for _, tok := range toks {
		text += m.model.TokenToPiece(tok)
	}
	if text != " héllo ✓" {
		t.Errorf("byte fallback read back as %q", text)
	}
	if toks, _ := m.Tokenize("<|im_start|>user"); len(toks) != 2 {
		t.Errorf("a special token written as text: %v", toks)
	}
	prompt, _ := m.promptTokens("hello")
	twice, _ := m.promptTokens("<s>hello")
	if prompt[0] != ggufgen.BOSID || !slices.Equal(prompt, twice) {
		t.Errorf("prompt tokens %v and with a written BOS %v", prompt, twice)
	}
}

func TestCompleteGreedy(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{}), Options{})
	opts := sidecar.CompleteOptions{MaxTokens: 24}
	a := complete(t, m, "the model", opts)
	b := complete(t, m, "the model", opts)
	if a.Text == "" || a.Text != b.Text {
		t.Fatalf("greedy completions differ: %q, %q", a.Text, b.Text)
	}
	if a.CompletionTokens != 24 || a.PromptTokens != 3 || a.PromptSeconds <= 0 || a.GenSeconds <= 0 {
		t.Errorf("measurements %+v", a)
	}
	short := complete(t, m, "the model", sidecar.CompleteOptions{MaxTokens: 5})
	if short.CompletionTokens != 5 || !strings.HasPrefix(a.Text, short.Text) {
		t.Errorf("MaxTokens 5 gave %d tokens %q, not a prefix of %q", short.CompletionTokens, short.Text, a.Text)
	}

	stop := a.Text[len(a.Text)/2 : len(a.Text)/2+2]
	s := complete(t, m, "the model", sidecar.CompleteOptions{MaxTokens: 24, Stop: []string{"never there", stop}})
	if want := a.Text[:strings.Index(a.Text, stop)]; s.Text != want || s.CompletionTokens >= 24 {
		t.Errorf("stop %q: %q after %d tokens, want %q", stop, s.Text, s.CompletionTokens, want)
	}

	x := complete(t, m, "the model", sidecar.CompleteOptions{MaxTokens: 24, Temperature: 0.9, Seed: 7})
	y := complete(t, m, "the model", sidecar.CompleteOptions{MaxTokens: 24, Temperature: 0.9, Seed: 7})
	if x.Text != y.Text {
		t.Errorf("the same seed gave %q and %q", x.Text, y.Text)
	}
}

// TestEndOfGeneration makes a token the model generates the end of
// sequence: generation stops before it.
func TestEndOfGeneration(t *testing.T) {
	path := tinyModel(t, ggufgen.Config{})
	m := load(t, path, Options{})
	var texts []string
	for n := 1; n <= 12; n++ {
		texts = append(texts, complete(t, m, "hello", sidecar.CompleteOptions{MaxTokens: n}).Text)
	}
	// The first generated piece of two bytes or more names one token.
	for k := 1; k < len(texts); k++ {
		piece := texts[k][len(texts[k-1]):]
		if len(piece) < 2 {
			continue
		}
		eos := -1
		for id := range m.model.NumVocab() {
			if m.model.TokenToPiece(id) == piece {
				eos = id
			}
		}
		e := load(t, tinyModel(t, ggufgen.Config{EOS: eos}), Options{})
		c := complete(t, e, "hello", sidecar.CompleteOptions{MaxTokens: 20})
		if c.Text != texts[k-1] || c.CompletionTokens != k+1 {
			t.Errorf("with %q (%d) the end: %q after %d tokens, want %q after %d", piece, eos, c.Text, c.CompletionTokens, texts[k-1], k+1)
		}
		return
	}
	t.Fatalf("no piece of two bytes in %q", texts[len(texts)-1])
}

func TestEmbed(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{}), Options{Embeddings: true})
	a, err := m.Embed(context.Background(), "hello world")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.Embed(context.Background(), "hello world")
	c, _ := m.Embed(context.Background(), "the water is hot")
	if len(a) != 64 || !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatalf("embeddings of %d values; same text equal: %v, other text differs: %v", len(a), slices.Equal(a, b), !slices.Equal(a, c))
	}
	var norm float64
	for _, x := range a {
		norm += float64(x) * float64(x)
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Errorf("squared norm %v", norm)
	}
	plain := load(t, tinyModel(t, ggufgen.Config{}), Options{})
	if _, err := plain.Embed(context.Background(), "x"); !errors.Is(err, ErrNoEmbeddings) {
		t.Errorf("Embed without Options.Embeddings: %v", err)
	}
}

func TestBadModel(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{"missing": filepath.Join(dir, "missing.gguf")}
	for _, c := range []ggufgen.Corruption{ggufgen.Truncated, ggufgen.HeaderCut, ggufgen.BadMagic,
		ggufgen.RandomBytes, ggufgen.Empty, ggufgen.UnknownArchitecture} {
		paths[c.String()] = filepath.Join(dir, c.String()+".gguf")
		if err := ggufgen.WriteCorrupt(paths[c.String()], ggufgen.Config{}, c); err != nil {
			t.Fatal(err)
		}
	}
	for name, path := range paths {
		m, err := Loader(Options{})(path, nil)
		if !errors.Is(err, sidecar.ErrBadModel) || m != nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v (model %v), want ErrBadModel naming the file", name, err, m)
		}
		if name == "missing" && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("missing file: %v", err)
		}
		if name == "unknown-architecture" && !strings.Contains(err.Error(), "lxxma") {
			t.Errorf("llama.cpp's reason is not in the error: %v", err)
		}
	}
	// The process still loads and runs a good model.
	m := load(t, tinyModel(t, ggufgen.Config{}), Options{})
	complete(t, m, "ok", sidecar.CompleteOptions{MaxTokens: 3})
}

func TestTooLong(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{}), Options{ContextSize: 32})
	_, err := m.Complete(context.Background(), strings.Repeat("hello ", 40), sidecar.CompleteOptions{})
	if !errors.Is(err, ErrTooLong) {
		t.Errorf("a prompt of 40 words in 32 tokens: %v", err)
	}
	c := complete(t, m, "hello", sidecar.CompleteOptions{MaxTokens: 100})
	if c.PromptTokens+c.CompletionTokens != 32 {
		t.Errorf("generation did not stop at the context: %+v", c)
	}
	if _, err := m.Complete(context.Background(), "", sidecar.CompleteOptions{}); err != nil {
		t.Errorf("an empty prompt is the beginning of a sequence: %v", err)
	}
}
