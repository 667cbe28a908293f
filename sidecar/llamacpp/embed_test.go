package llamacpp

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

// embed embeds text with m and fails the test on an error.
func embed(t testing.TB, m *Model, text string) []float32 {
	t.Helper()
	v, err := m.Embed(context.Background(), text)
	if err != nil {
		t.Fatalf("Embed(%q): %v", text, err)
	}
	return v
}

// cosine is the cosine similarity of a and b.
func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// near says whether a and b are the same vector up to float rounding,
// which differs with the batch a text was decoded in.
func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-4 {
			return false
		}
	}
	return true
}

// words returns n words of the generated vocabulary, each one token.
func words(n int) string {
	w := strings.Fields("hello world the water is hot model memory")
	out := make([]string, n)
	for i := range out {
		out[i] = w[i%len(w)]
	}
	return strings.Join(out, " ")
}

// TestEmbeddingModel loads the generated bert and nomic-bert models
// through llama.cpp: the pooling type comes from the GGUF, the WordPiece
// tokenizer frames a text with [CLS] and [SEP], and embeddings are
// deterministic, normalised and tell texts apart.
func TestEmbeddingModel(t *testing.T) {
	for _, cfg := range []ggufgen.Config{
		{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingMean},
		{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingCLS},
		{Architecture: ggufgen.ArchNomicBERT, Pooling: gguf.PoolingMean},
	} {
		t.Run(cfg.Architecture+"-"+cfg.Pooling.String(), func(t *testing.T) {
			m := load(t, tinyModel(t, cfg), Options{EmbeddingModel: true})
			if m.Pooling() != cfg.Pooling || !m.EmbeddingModel() {
				t.Fatalf("pooling %v, embedding model %v; want %v", m.Pooling(), m.EmbeddingModel(), cfg.Pooling)
			}
			toks, err := m.promptTokens("Hello, world")
			if err != nil {
				t.Fatal(err)
			}
			if len(toks) != 5 || toks[0] != ggufgen.CLSID || toks[4] != ggufgen.SepID {
				t.Errorf("tokens of \"Hello, world\": %v, want [CLS] hello , world [SEP]", toks)
			}
			a := embed(t, m, "hello world")
			b := embed(t, m, "hello world")
			c := embed(t, m, "the water is hot")
			if len(a) != 64 || !slices.Equal(a, b) || slices.Equal(a, c) {
				t.Fatalf("embeddings of %d values; same text equal: %v, other text differs: %v", len(a), slices.Equal(a, b), !slices.Equal(a, c))
			}
			if math.Abs(float64(dot(a, a))-1) > 1e-5 {
				t.Errorf("squared norm %v", dot(a, a))
			}
			if _, err := m.Complete(context.Background(), "hello", sidecar.CompleteOptions{}); !errors.Is(err, ErrEmbeddingModel) {
				t.Errorf("Complete on an embedding model: %v", err)
			}
		})
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestPooling gives the same bert weights each pooling type: llama.cpp's
// mean pooling equals the mean of the token states it gives without
// pooling, and cls pooling is another vector.
func TestPooling(t *testing.T) {
	vec := map[gguf.Pooling][]float32{}
	const text = "my memory of the file is the test"
	for _, p := range []gguf.Pooling{gguf.PoolingNone, gguf.PoolingMean, gguf.PoolingCLS} {
		m := load(t, tinyModel(t, ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: p, Seed: 7}), Options{})
		if m.Pooling() != p || !m.EmbeddingModel() {
			t.Fatalf("pooling %v (embedding model %v), want %v", m.Pooling(), m.EmbeddingModel(), p)
		}
		vec[p] = embed(t, m, text)
	}
	if !near(vec[gguf.PoolingMean], vec[gguf.PoolingNone]) {
		t.Errorf("mean pooling differs from the mean of the token states: cosine %v", cosine(vec[gguf.PoolingMean], vec[gguf.PoolingNone]))
	}
	if c := cosine(vec[gguf.PoolingMean], vec[gguf.PoolingCLS]); c > 0.999 {
		t.Errorf("cls and mean pooling of the same weights agree (cosine %v)", c)
	}
}

// TestEmbedConcurrent embeds texts from many goroutines through four
// slots: two texts of 300 tokens cannot share a step of 512, so they wait
// for each other, and each embedding equals the text's embedding alone.
func TestEmbedConcurrent(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingMean}), Options{Parallel: 4})
	texts := []string{words(300), words(299), "hello world", "the water is hot", "write the code",
		"my memory of the file", words(40), "yes", "no", words(200)}
	alone := make([][]float32, len(texts))
	for i, s := range texts {
		alone[i] = embed(t, m, s)
	}
	got := make([][]float32, len(texts))
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	for i, s := range texts {
		wg.Go(func() { got[i], errs[i] = m.Embed(context.Background(), s) })
	}
	wg.Wait()
	for i := range texts {
		if errs[i] != nil || !near(got[i], alone[i]) {
			t.Errorf("text %d together: %v, cosine to alone %v", i, errs[i], cosine(got[i], alone[i]))
		}
	}
}

// TestEmbedCut embeds a text longer than the 512 positions of bert: it is
// cut, so it embeds as its first 511 words do ([CLS] takes a position),
// and not as its first 300.
func TestEmbedCut(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingMean}), Options{})
	long := embed(t, m, words(2000))
	if first := embed(t, m, words(511)); !near(long, first) {
		t.Errorf("a long text does not embed as its first 511 words (cosine %v)", cosine(long, first))
	}
	if shorter := embed(t, m, words(300)); near(long, shorter) {
		t.Error("a long text embeds as its first 300 words")
	}
}

// TestPooledDecoder embeds with a causal qwen3 model whose GGUF names last
// pooling, as Qwen3-Embedding does: it goes through the key/value cache
// path and llama.cpp's pooling, and cannot generate.
func TestPooledDecoder(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{Architecture: ggufgen.ArchQwen3, Pooling: gguf.PoolingLast}), Options{EmbeddingModel: true})
	if m.Pooling() != gguf.PoolingLast || !m.EmbeddingModel() {
		t.Fatalf("pooling %v, embedding model %v", m.Pooling(), m.EmbeddingModel())
	}
	a, b := embed(t, m, "hello world"), embed(t, m, "the water")
	if len(a) != 64 || slices.Equal(a, b) || math.Abs(float64(dot(a, a))-1) > 1e-5 {
		t.Errorf("last-token embeddings: %d values, texts differ %v, squared norm %v", len(a), !slices.Equal(a, b), dot(a, a))
	}
	if _, err := m.Complete(context.Background(), "hello", sidecar.CompleteOptions{}); !errors.Is(err, ErrEmbeddingModel) {
		t.Errorf("Complete on a pooled decoder: %v", err)
	}
	// The same weights without a pooling type are a generation model,
	// embedded with the hand mean.
	gen := load(t, tinyModel(t, ggufgen.Config{Architecture: ggufgen.ArchQwen3}), Options{Embeddings: true})
	if gen.EmbeddingModel() {
		t.Error("qwen3 without a pooling type is an embedding model")
	}
	if c := embed(t, gen, "hello world"); near(a, c) {
		t.Error("last pooling gives the hand mean")
	}
}

// TestNotEmbeddingModel asks for an embedding model and gets a generation
// GGUF, a corrupt one, or none.
func TestNotEmbeddingModel(t *testing.T) {
	gen := tinyModel(t, ggufgen.Config{})
	_, err := Load(gen, Options{EmbeddingModel: true, Threads: 1})
	if !errors.Is(err, ErrNotEmbeddingModel) || !strings.Contains(err.Error(), gen) {
		t.Errorf("a generation model as an embedding model: %v", err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.gguf")
	if err := ggufgen.WriteCorrupt(cut, ggufgen.Config{Architecture: ggufgen.ArchBERT, Pooling: gguf.PoolingMean}, ggufgen.Truncated); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{cut, filepath.Join(dir, "missing.gguf")} {
		if _, err := Load(path, Options{EmbeddingModel: true, Threads: 1}); !errors.Is(err, sidecar.ErrBadModel) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want ErrBadModel naming the file", filepath.Base(path), err)
		}
	}
}

// BenchmarkEmbed measures the tiny embedding models' latency: one
// 11-word sentence at a time (p50 and p90 per text) with bert and
// nomic-bert, and 4 at once with bert (texts per second).
func BenchmarkEmbed(b *testing.B) {
	text := "the agent wrote the memory of the file and the test"
	for _, arch := range []string{ggufgen.ArchBERT, ggufgen.ArchNomicBERT} {
		m := load(b, tinyModel(b, ggufgen.Config{Architecture: arch, Pooling: gguf.PoolingMean}), Options{Parallel: 4})
		b.Run("sequential-"+arch, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := m.Embed(context.Background(), text); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
		})
		if arch != ggufgen.ArchBERT {
			continue
		}
		b.Run("concurrent-4-"+arch, func(b *testing.B) {
			n := 0
			start := time.Now()
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range 4 {
					wg.Go(func() {
						if _, err := m.Embed(context.Background(), fmt.Sprint(text, i)); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				n += 4
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "texts/s")
		})
	}
}
