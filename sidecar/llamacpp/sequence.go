package llamacpp

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"bytes"
	"errors"
	"math"
	"time"

	"github.com/ollama/ollama/llama"

	"github.com/kwsdev/kws/sidecar"
)

// sequence is a request being decoded in a slot of the worker.
type sequence struct {
	req *request
	// id is the slot index and the llama.cpp sequence id.
	id int
	// pending holds the tokens to decode next: the rest of the prompt, or
	// the token sampled last.
	pending []int
	// pos is the number of tokens in the sequence's cache.
	pos int
	// outputs are the batch indices of the sequence's outputs in the step
	// being decoded; inBatch says it has tokens in that step.
	outputs []int
	inBatch bool

	sampler    *llama.SamplingContext
	text       []byte
	generated  int
	start      time.Time
	promptDone time.Time

	// sum and n accumulate an embedding.
	sum []float64
	n   int
}

// newSequence starts decoding r in slot id.
func newSequence(model *llama.Model, id int, r *request) (*sequence, error) {
	s := &sequence{req: r, id: id, pending: r.tokens, start: time.Now()}
	if r.embed {
		return s, nil
	}
	// llama.cpp's defaults; a temperature of 0 picks the most likely token.
	sc, err := llama.NewSamplingContext(model, llama.SamplingParams{
		TopK: 40, TopP: 0.95, MinP: 0.05, TypicalP: 1,
		Temp: r.opts.Temperature, Seed: r.opts.Seed,
		RepeatLastN: 64, PenaltyRepeat: 1,
	})
	if err != nil {
		return nil, err
	}
	s.sampler = sc
	return s, nil
}

// fill adds the sequence's next tokens to b: at most batchSize of them,
// with an output for the last prompt token and every sampled one, or for
// every token of an embedding.
func (s *sequence) fill(b *llama.Batch) {
	s.outputs = s.outputs[:0]
	n := min(len(s.pending), batchSize)
	for i, tok := range s.pending[:n] {
		out := s.req.embed || (n == len(s.pending) && i == n-1)
		b.Add(tok, nil, s.pos+i, out, s.id)
		if out {
			s.outputs = append(s.outputs, b.NumTokens()-1)
		}
	}
	s.pending = s.pending[n:]
	s.pos += n
	s.inBatch = true
}

// decoded takes the sequence's outputs of the step just decoded. It
// reports whether the sequence is done, with its result.
func (s *sequence) decoded(m *Model, contextSize int) (bool, result) {
	model, lc := m.model, m.lc
	if s.req.embed {
		return s.embedded(lc, m.pooling != gguf.PoolingNone)
	}
	if len(s.pending) > 0 {
		return false, result{}
	}
	tok := s.sampler.Sample(lc, s.outputs[0])
	s.sampler.Accept(tok, false)
	if s.generated == 0 {
		s.promptDone = time.Now()
	}
	s.generated++
	if model.TokenIsEog(tok) {
		return true, s.completion()
	}
	prev := len(s.text)
	s.text = append(s.text, model.TokenToPiece(tok)...)
	if i := s.stopAt(prev); i >= 0 {
		s.text = s.text[:i]
		return true, s.completion()
	}
	if s.generated >= s.req.opts.MaxTokens || len(s.req.tokens)+s.generated >= contextSize {
		return true, s.completion()
	}
	s.pending = append(s.pending, tok)
	return false, result{}
}

// stopAt returns where the first stop string starts in the text, looking
// only where one could end after prev, or -1.
func (s *sequence) stopAt(prev int) int {
	at := -1
	for _, stop := range s.req.opts.Stop {
		if stop == "" {
			continue
		}
		from := max(0, prev-len(stop)+1)
		if i := bytes.Index(s.text[from:], []byte(stop)); i >= 0 && (at < 0 || from+i < at) {
			at = from + i
		}
	}
	return at
}

// completion is the result of a finished completion.
func (s *sequence) completion() result {
	return result{completion: sidecar.Completion{
		Text:             string(s.text),
		PromptTokens:     len(s.req.tokens),
		CompletionTokens: s.generated,
		PromptSeconds:    s.promptDone.Sub(s.start).Seconds(),
		GenSeconds:       time.Since(s.promptDone).Seconds(),
	}}
}

// embedded takes the step's embeddings: the sequence embedding llama.cpp
// pooled, or else the hidden states of the step's tokens, added to the sum
// until the last token. It returns the result, L2-normalised.
func (s *sequence) embedded(lc *llama.Context, pooled bool) (bool, result) {
	if pooled {
		s.add(lc.GetEmbeddingsSeq(s.id))
	} else {
		for _, i := range s.outputs {
			s.add(lc.GetEmbeddingsIth(i))
		}
	}
	if len(s.pending) > 0 {
		return false, result{}
	}
	if s.n == 0 {
		return true, result{err: errors.New("llamacpp: the model gives no embeddings")}
	}
	var norm float64
	for _, x := range s.sum {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	if norm == 0 {
		norm = 1
	}
	v := make([]float32, len(s.sum))
	for i, x := range s.sum {
		v[i] = float32(x / norm)
	}
	return true, result{embedding: v}
}

// add adds one hidden state to the embedding sum.
func (s *sequence) add(e []float32) {
	if e == nil {
		return
	}
	if s.sum == nil {
		s.sum = make([]float64, len(e))
	}
	for i, x := range e {
		s.sum[i] += float64(x)
	}
	s.n++
}
