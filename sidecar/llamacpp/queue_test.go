package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
)

var prompts = []string{"hello world", "the water is hot", "write the code", "my memory of the file"}

// outcome is what one concurrent call returned.
type outcome struct {
	c   sidecar.Completion
	err error
	at  time.Duration
}

// together runs the completions at once and returns their outcomes and
// when each returned.
func together(m *Model, ctxs []context.Context, prompts []string, opts []sidecar.CompleteOptions) []outcome {
	out := make([]outcome, len(prompts))
	start := time.Now()
	var wg sync.WaitGroup
	for i := range prompts {
		wg.Go(func() {
			c, err := m.Complete(ctxs[i], prompts[i], opts[i])
			out[i] = outcome{c, err, time.Since(start)}
		})
	}
	wg.Wait()
	return out
}

// TestConcurrent decodes four greedy completions together, and six through
// two slots: each equals its completion alone. The first prompt is longer
// than a batch, so it goes in chunks next to the others' tokens.
func TestConcurrent(t *testing.T) {
	path := tinyModel(t, ggufgen.Config{HeadsKV: 2})
	for _, tc := range []struct{ parallel, n int }{{4, 4}, {2, 6}} {
		t.Run(fmt.Sprintf("%d-in-%d", tc.n, tc.parallel), func(t *testing.T) {
			m := load(t, path, Options{Parallel: tc.parallel})
			var ps []string
			var opts []sidecar.CompleteOptions
			var ctxs []context.Context
			for i := range tc.n {
				p := prompts[i%len(prompts)] + fmt.Sprint(i)
				if i == 0 {
					p = strings.Repeat(p+" ", batchSize/2)
				}
				ps = append(ps, p)
				opts = append(opts, sidecar.CompleteOptions{MaxTokens: 16 + 8*i})
				ctxs = append(ctxs, context.Background())
			}
			var alone []string
			for i := range ps {
				alone = append(alone, complete(t, m, ps[i], opts[i]).Text)
			}
			for i, o := range together(m, ctxs, ps, opts) {
				if o.err != nil || o.c.Text != alone[i] || o.c.CompletionTokens != opts[i].MaxTokens {
					t.Errorf("%q together: %q (%d tokens, %v), alone: %q", ps[i], o.c.Text, o.c.CompletionTokens, o.err, alone[i])
				}
			}
		})
	}
}

// TestEmbedWhileCompleting puts an embedding in the same batches as
// completions.
func TestEmbedWhileCompleting(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{}), Options{Embeddings: true})
	alone, err := m.Embed(context.Background(), prompts[1])
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, p := range prompts {
		wg.Go(func() {
			if _, err := m.Complete(context.Background(), p, sidecar.CompleteOptions{MaxTokens: 32}); err != nil {
				t.Error(err)
			}
		})
	}
	time.Sleep(time.Millisecond)
	mixed, err := m.Embed(context.Background(), prompts[1])
	wg.Wait()
	if err != nil || len(mixed) != len(alone) {
		t.Fatalf("embedding next to completions: %d values, %v", len(mixed), err)
	}
	for i := range alone {
		if d := alone[i] - mixed[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("value %d: %v alone, %v next to completions", i, alone[i], mixed[i])
		}
	}
}

// TestCancel cancels one long completion among short ones: it returns
// context.Canceled at once and the others finish as they would alone.
func TestCancel(t *testing.T) {
	m := load(t, tinyModel(t, ggufgen.Config{}), Options{ContextSize: 8192})
	opts := []sidecar.CompleteOptions{{MaxTokens: 1 << 20}, {MaxTokens: 40}, {MaxTokens: 40}, {MaxTokens: 40}}
	var alone []string
	for i := 1; i < 4; i++ {
		alone = append(alone, complete(t, m, prompts[i], opts[i]).Text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ctxs := []context.Context{ctx, context.Background(), context.Background(), context.Background()}
	const after = 50 * time.Millisecond
	time.AfterFunc(after, cancel)
	out := together(m, ctxs, prompts, opts)
	if !errors.Is(out[0].err, context.Canceled) || out[0].at > after+500*time.Millisecond {
		t.Errorf("cancelled completion: %v after %v (%d tokens)", out[0].err, out[0].at, out[0].c.CompletionTokens)
	}
	for i := 1; i < 4; i++ {
		if out[i].err != nil || out[i].c.Text != alone[i-1] {
			t.Errorf("%q next to a cancelled one: %q, %v; alone %q", prompts[i], out[i].c.Text, out[i].err, alone[i-1])
		}
	}
	// A slot freed by cancellation serves the next request.
	if c := complete(t, m, prompts[1], opts[1]); c.Text != alone[0] {
		t.Errorf("after the cancellation: %q, want %q", c.Text, alone[0])
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := m.Complete(done, "hello", sidecar.CompleteOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a done context: %v", err)
	}
}

// TestClose closes the model under running and waiting requests: they all
// fail with ErrClosed, as does every later call.
func TestClose(t *testing.T) {
	m, err := Load(tinyModel(t, ggufgen.Config{}), Options{Parallel: 2, ContextSize: 8192, Threads: 1, Embeddings: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 5
	ctxs := slices.Repeat([]context.Context{context.Background()}, n)
	opts := slices.Repeat([]sidecar.CompleteOptions{{MaxTokens: 1 << 20}}, n)
	time.AfterFunc(50*time.Millisecond, func() { m.Close() })
	for i, o := range together(m, ctxs, slices.Repeat([]string{"hello"}, n), opts) {
		if !errors.Is(o.err, ErrClosed) {
			t.Errorf("request %d: %v after %v", i, o.err, o.at)
		}
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	_, errC := m.Complete(context.Background(), "hello", sidecar.CompleteOptions{})
	_, errE := m.Embed(context.Background(), "hello")
	_, errT := m.Tokenize("hello")
	for _, err := range []error{errC, errE, errT} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("after Close: %v", err)
		}
	}
	if m.Metadata()["general.architecture"] != "llama" {
		t.Error("Metadata after Close")
	}
}

// BenchmarkComplete measures prompt and generation throughput with 1, 2
// and 4 requests decoded together: tokens of all requests per second of
// the slowest one's phase.
func BenchmarkComplete(b *testing.B) {
	m := load(b, tinyModel(b, ggufgen.Config{}), Options{})
	long := "the water is hot and the people of the world know it " // 13 words
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("concurrent-%d", n), func(b *testing.B) {
			var promptTok, genTok int
			var promptSec, genSec float64
			for b.Loop() {
				var mu sync.Mutex
				var pMax, gMax float64
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						c, err := m.Complete(context.Background(), fmt.Sprint(long, long, long, long, i), sidecar.CompleteOptions{MaxTokens: 64})
						if err != nil {
							b.Error(err)
						}
						mu.Lock()
						defer mu.Unlock()
						promptTok += c.PromptTokens
						genTok += c.CompletionTokens
						pMax, gMax = max(pMax, c.PromptSeconds), max(gMax, c.GenSeconds)
					})
				}
				wg.Wait()
				promptSec += pMax
				genSec += gMax
			}
			b.ReportMetric(float64(promptTok)/promptSec, "prompt-tok/s")
			b.ReportMetric(float64(genTok)/genSec, "gen-tok/s")
		})
	}
}
