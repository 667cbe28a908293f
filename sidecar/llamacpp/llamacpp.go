// Package llamacpp runs a GGUF model in process with llama.cpp, through
// the llama package of github.com/ollama/ollama; it is the only package of
// kws that imports it. Model implements sidecar.Model: one worker goroutine
// owns the llama.cpp context and decodes the queued requests together, one
// sequence each, so every agent of a process shares one model.
//
// A dedicated embedding model (the bert and nomic-bert architectures of
// the bge, MiniLM and nomic-embed families, or any GGUF naming
// <arch>.pooling_type) is run as llama.cpp runs it: each text decoded
// whole, pooled by llama.cpp as the GGUF says (mean, cls or last) and
// L2-normalised. A generation model embeds with the mean of its last
// hidden states instead.
//
// Building needs the headers named in the Makefile (make setup) and
// CGO_CPPFLAGS pointing at .build/include (make env prints it).
package llamacpp

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"sync"

	"github.com/ollama/ollama/llama"
	"github.com/ollama/ollama/ml"

	"github.com/kwsdev/kws/sidecar"
)

// Documented errors.
var (
	// ErrClosed is returned by calls on a closed Model, and by the calls
	// pending when it closes.
	ErrClosed = errors.New("llamacpp: model closed")
	// ErrTooLong is returned by Complete when the prompt does not fit the
	// context of a sequence.
	ErrTooLong = errors.New("llamacpp: prompt longer than the context")
	// ErrNoEmbeddings is returned by Embed when a generation model was
	// loaded without Options.Embeddings.
	ErrNoEmbeddings = errors.New("llamacpp: embeddings not enabled")
	// ErrEmbeddingModel is returned by Complete on an embedding model,
	// which has no language-model head to generate with.
	ErrEmbeddingModel = errors.New("llamacpp: an embedding model cannot generate text")
	// ErrNotEmbeddingModel is wrapped by Load's error when
	// Options.EmbeddingModel asks for an embedding model and the GGUF is a
	// generation model (it names no pooling type).
	ErrNotEmbeddingModel = errors.New("not an embedding model (the GGUF names no pooling type; it is a generation model)")
)

// batchSize is the most tokens of one sequence decoded in one step: a long
// prompt goes in chunks of this size, so the other sequences keep moving.
const batchSize = 512

// Options tune Load; zero fields take the defaults noted.
type Options struct {
	// ContextSize is the tokens of one sequence, prompt and generated text
	// together (2048).
	ContextSize int
	// Parallel is the most sequences decoded together (4); more requests
	// wait in the queue.
	Parallel int
	// Threads is the CPU threads llama.cpp uses (half of runtime.NumCPU(),
	// about the physical cores, leaving room for the agents' own work).
	Threads int
	// Progress, when set, receives the loading progress and ends at 1.
	Progress sidecar.LoadProgress
	// Embeddings enables Embed on a generation model; an embedding model
	// always embeds.
	Embeddings bool
	// EmbeddingModel makes Load refuse a generation model, whose mean
	// hidden state is a poor embedding, with ErrNotEmbeddingModel.
	EmbeddingModel bool
}

// Model is a loaded GGUF model. Its methods are safe for concurrent use.
type Model struct {
	opts Options
	meta map[string]string
	// pooling is how llama.cpp pools the model's embeddings. embedder
	// says the model is an embedding model: it pools, or is an encoder
	// without a key/value cache. Its texts are decoded whole, each in one
	// step, at most maxEmbed tokens.
	pooling  gguf.Pooling
	embedder bool
	maxEmbed int

	reqs chan *request
	quit chan struct{}
	done chan struct{}
	once sync.Once

	// mu guards model and lc against Close: Tokenize and the worker use
	// them under a read lock or as the owner; Close frees them.
	mu     sync.RWMutex
	closed bool
	model  *llama.Model
	lc     *llama.Context
	// batch is the worker's, reused every step.
	batch *llama.Batch
}

var _ sidecar.Model = (*Model)(nil)

// Load loads the GGUF model at path. The file is checked in Go first, so a
// missing, truncated or corrupt file is an error wrapping
// sidecar.ErrBadModel rather than a crash in llama.cpp.
func Load(path string, opts Options) (*Model, error) {
	opts = opts.withDefaults()
	f, err := gguf.Read(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", sidecar.ErrBadModel, path, err)
	}
	arch := f.String("general.architecture")
	if arch == "" {
		return nil, fmt.Errorf("%w: %s: no general.architecture", sidecar.ErrBadModel, path)
	}
	backendInit()
	recentErrors() // drop what earlier loads left
	var last float32
	params := llama.ModelParams{UseMmap: true, Progress: func(p float32) {
		last = p
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}}
	model, err := llama.LoadModelFromFile(path, params)
	if err != nil {
		return nil, loadError(path, err)
	}
	ctxParams := llama.NewContextParams(opts.ContextSize*opts.Parallel, batchSize, opts.Parallel, opts.Threads, ml.FlashAttentionAuto, "")
	lc, err := llama.NewContextWithModel(model, ctxParams)
	if err != nil {
		llama.FreeModel(model)
		return nil, loadError(path, err)
	}
	pooling, encoder := contextPooling(lc), !hasCache(lc)
	var refuse error
	switch {
	case pooling == gguf.PoolingRank:
		refuse = fmt.Errorf("%w: %s: a reranker (pooling type rank), not an embedding or generation model", sidecar.ErrBadModel, path)
	case opts.EmbeddingModel && !encoder && pooling == gguf.PoolingNone:
		refuse = fmt.Errorf("llamacpp: %s (%s): %w", path, arch, ErrNotEmbeddingModel)
	}
	if refuse != nil {
		freeContext(lc)
		llama.FreeModel(model)
		return nil, refuse
	}
	batch, err := llama.NewBatch(batchSize, opts.Parallel, 0)
	if err != nil {
		freeContext(lc)
		llama.FreeModel(model)
		return nil, fmt.Errorf("llamacpp: %w", err)
	}
	if opts.Progress != nil && last < 1 {
		opts.Progress(1)
	}
	m := &Model{
		opts: opts, meta: metadata(f), model: model, lc: lc, batch: batch,
		pooling: pooling, embedder: encoder || pooling != gguf.PoolingNone, maxEmbed: opts.ContextSize,
		reqs: make(chan *request), quit: make(chan struct{}), done: make(chan struct{}),
	}
	if m.embedder {
		// llama.cpp pools what one decode step saw, and an encoder sees
		// the whole batch in one micro-batch, so a text goes whole into a
		// step; an encoder has no positions past its training context.
		m.maxEmbed = min(m.maxEmbed, batchSize)
		if n := trainContext(model); n > 0 {
			m.maxEmbed = min(m.maxEmbed, n)
		}
	}
	go m.run()
	return m, nil
}

// Loader returns a sidecar.Loader loading with opts and the loader's
// progress callback.
func Loader(opts Options) sidecar.Loader {
	return func(path string, progress sidecar.LoadProgress) (sidecar.Model, error) {
		o := opts
		o.Progress = progress
		m, err := Load(path, o)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.ContextSize <= 0 {
		o.ContextSize = 2048
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.Threads <= 0 {
		o.Threads = max(1, runtime.NumCPU()/2)
	}
	return o
}

// Complete continues prompt, which may hold the chat template's special
// tokens as text; see sidecar.Model.
func (m *Model) Complete(ctx context.Context, prompt string, opts sidecar.CompleteOptions) (sidecar.Completion, error) {
	if m.embedder {
		return sidecar.Completion{}, ErrEmbeddingModel
	}
	tokens, err := m.promptTokens(prompt)
	if err != nil {
		return sidecar.Completion{}, err
	}
	if len(tokens) >= m.opts.ContextSize {
		return sidecar.Completion{}, fmt.Errorf("%w: %d tokens, %d in the context", ErrTooLong, len(tokens), m.opts.ContextSize)
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = 256
	}
	r := m.submit(&request{ctx: ctx, tokens: tokens, opts: opts})
	return r.completion, r.err
}

// Embed returns the embedding of text, L2-normalised. An embedding model
// pools as its GGUF says, over at most 512 tokens (fewer when its training
// context is shorter, or ContextSize is); a text longer than that is cut,
// as sentence-transformers cuts it. A generation model gives the mean of
// its last hidden states over at most ContextSize tokens. Text goes in as
// it is: task prefixes such as nomic-embed's "search_query: " are the
// caller's (sidecar.EmbedPrefixes names them).
func (m *Model) Embed(ctx context.Context, text string) ([]float32, error) {
	if !m.opts.Embeddings && !m.embedder {
		return nil, ErrNoEmbeddings
	}
	tokens, err := m.promptTokens(text)
	if err != nil {
		return nil, err
	}
	r := m.submit(&request{ctx: ctx, tokens: tokens[:min(len(tokens), m.maxEmbed)], embed: true})
	return r.embedding, r.err
}

// Pooling returns how llama.cpp pools the model's embeddings, read from
// the GGUF's <arch>.pooling_type: PoolingNone for a generation model,
// which Embed averages by hand.
func (m *Model) Pooling() gguf.Pooling {
	return m.pooling
}

// EmbeddingModel says whether the model is an embedding model (it pools,
// or is an encoder), which embeds but cannot generate.
func (m *Model) EmbeddingModel() bool {
	return m.embedder
}

// Tokenize returns the token ids of text without the beginning-of-sequence
// token; special tokens written as text are recognised.
func (m *Model) Tokenize(text string) ([]int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	return m.model.Tokenize(text, false, true)
}

// Metadata returns the GGUF metadata as strings; arrays of more than eight
// values are summarised by length and type.
func (m *Model) Metadata() map[string]string {
	return maps.Clone(m.meta)
}

// Close stops the worker, fails the pending calls with ErrClosed and frees
// the model. Later calls return ErrClosed.
func (m *Model) Close() error {
	m.once.Do(func() {
		close(m.quit)
		<-m.done
		m.mu.Lock()
		defer m.mu.Unlock()
		m.closed = true
		m.batch.Free()
		freeContext(m.lc)
		llama.FreeModel(m.model)
	})
	return nil
}

// promptTokens tokenizes a prompt as the model reads it: with the
// beginning-of-sequence token when the model wants one, once even when the
// template already wrote it.
func (m *Model) promptTokens(text string) ([]int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	tokens, err := m.model.Tokenize(text, true, true)
	if err != nil {
		return nil, err
	}
	if len(tokens) >= 2 && m.model.AddBOSToken() && tokens[0] == tokens[1] {
		tokens = tokens[1:]
	}
	if len(tokens) == 0 {
		return nil, errors.New("llamacpp: empty prompt")
	}
	return tokens, nil
}

// submit queues r and waits for its answer.
func (m *Model) submit(r *request) result {
	if err := r.ctx.Err(); err != nil {
		return result{err: err}
	}
	r.reply = make(chan result, 1)
	select {
	case m.reqs <- r:
		return <-r.reply
	case <-m.quit:
		return result{err: ErrClosed}
	case <-r.ctx.Done():
		return result{err: r.ctx.Err()}
	}
}

// metadata formats the GGUF metadata of f as strings.
func metadata(f *gguf.File) map[string]string {
	meta := make(map[string]string, len(f.KV))
	for _, kv := range f.KV {
		v := reflect.ValueOf(kv.Value)
		switch {
		case v.Kind() != reflect.Slice:
			meta[kv.Key] = fmt.Sprint(kv.Value)
		case v.Len() > 8:
			meta[kv.Key] = fmt.Sprintf("[%d × %s]", v.Len(), v.Type().Elem())
		case v.Type().Elem().Kind() == reflect.String:
			meta[kv.Key] = fmt.Sprintf("%q", kv.Value)
		default:
			meta[kv.Key] = fmt.Sprint(kv.Value)
		}
	}
	return meta
}
