package llamacpp

import (
	"context"
	"fmt"
	"slices"

	"github.com/ollama/ollama/llama"

	"github.com/kwsdev/kws/sidecar"
)

// request is one Complete or Embed call on its way to the worker.
type request struct {
	ctx    context.Context
	tokens []int
	embed  bool
	opts   sidecar.CompleteOptions
	// reply receives exactly one result; it is buffered so the worker never
	// waits for the caller.
	reply chan result
}

// result answers a request.
type result struct {
	completion sidecar.Completion
	embedding  []float32
	err        error
}

// worker is the state of the goroutine that owns the llama.cpp context:
// the sequences being decoded, one per slot (the slot index is the llama.cpp
// sequence id), and the requests waiting for a slot.
type worker struct {
	m     *Model
	batch *llama.Batch
	slots []*sequence
	queue []*request
	// active is the step's sequences, reused every step.
	active []*sequence
}

// run is the worker goroutine: it collects requests, admits them into free
// slots and decodes one step of every active sequence at a time, until the
// model closes.
func (m *Model) run() {
	defer close(m.done)
	w := &worker{m: m, batch: m.batch, slots: make([]*sequence, m.opts.Parallel)}
	for {
		if w.idle() {
			select {
			case r := <-m.reqs:
				w.queue = append(w.queue, r)
			case <-m.quit:
				w.failAll(ErrClosed)
				return
			}
		}
	collect:
		for {
			select {
			case r := <-m.reqs:
				w.queue = append(w.queue, r)
			case <-m.quit:
				w.failAll(ErrClosed)
				return
			default:
				break collect
			}
		}
		w.dropCancelled()
		w.admit()
		w.step()
	}
}

// idle says whether there is nothing to decode and nothing waiting.
func (w *worker) idle() bool {
	if len(w.queue) > 0 {
		return false
	}
	for _, s := range w.slots {
		if s != nil {
			return false
		}
	}
	return true
}

// dropCancelled answers the requests whose context is done, waiting or
// active, and frees their sequences.
func (w *worker) dropCancelled() {
	q := w.queue[:0]
	for _, r := range w.queue {
		if err := r.ctx.Err(); err != nil {
			r.reply <- result{err: err}
		} else {
			q = append(q, r)
		}
	}
	clear(w.queue[len(q):])
	w.queue = q
	for _, s := range w.slots {
		if s != nil {
			if err := s.req.ctx.Err(); err != nil {
				w.finish(s, result{err: err})
			}
		}
	}
}

// admit moves waiting requests into free slots, oldest first.
func (w *worker) admit() {
	for i := range w.slots {
		if len(w.queue) == 0 {
			return
		}
		if w.slots[i] != nil {
			continue
		}
		s, err := newSequence(w.m.model, i, w.queue[0])
		if err != nil {
			w.queue[0].reply <- result{err: err}
		} else {
			w.slots[i] = s
		}
		w.queue = w.queue[1:]
	}
}

// step decodes one batch holding the next tokens of every active sequence
// (a chunk of its prompt, or the token it sampled last) and hands each
// sequence its outputs.
func (w *worker) step() {
	w.batch.Clear()
	w.active = w.active[:0]
	for _, s := range w.slots {
		if s != nil {
			s.inBatch = false
			w.active = append(w.active, s)
		}
	}
	if w.m.embedder {
		// An embedding model's text goes into one step whole (Embed cut
		// it to fit); one that no longer fits waits for the next step.
		// The oldest go first, so a long text that waited always fits
		// and a stream of short ones cannot starve it.
		slices.SortFunc(w.active, func(a, b *sequence) int { return a.start.Compare(b.start) })
	}
	for _, s := range w.active {
		if w.m.embedder && w.batch.NumTokens()+len(s.pending) > batchSize {
			continue
		}
		s.fill(w.batch)
	}
	if w.batch.NumTokens() == 0 {
		return
	}
	if err := w.m.lc.Decode(w.batch); err != nil {
		w.failAll(fmt.Errorf("llamacpp: decode: %w", err))
		return
	}
	for _, s := range w.slots {
		if s == nil || !s.inBatch {
			continue
		}
		if done, r := s.decoded(w.m, w.m.opts.ContextSize); done {
			w.finish(s, r)
		}
	}
}

// finish answers s's request with r and frees its slot and cache.
func (w *worker) finish(s *sequence, r result) {
	s.req.reply <- r
	w.m.lc.KvCacheSeqRm(s.id, 0, -1)
	w.slots[s.id] = nil
}

// failAll answers every active and waiting request with err.
func (w *worker) failAll(err error) {
	for _, s := range w.slots {
		if s != nil {
			w.finish(s, result{err: err})
		}
	}
	for _, r := range w.queue {
		r.reply <- result{err: err}
	}
	w.queue = nil
}
