package memory

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/philippgille/chromem-go"
)

// UnrecordedEmbedder is the embedder a memory records when it was
// written before memories recorded theirs and its vector is not
// HashEmbedder's: no embedder can claim it, so it is re-embedded.
const UnrecordedEmbedder = "unrecorded"

// reembedWorkers bounds how many memories are re-embedded at once: an
// embedding server is asked a few texts at a time, not thousands.
const reembedWorkers = 4

// reembedNotifyEvery is how many re-embedded memories make one progress
// event for the watchers (see Watch), besides the first and the last.
const reembedNotifyEvery = 25

// HashEmbedderID is the EmbedderID of HashEmbedder(dims).
func HashEmbedderID(dims int) string {
	if dims <= 0 {
		dims = DefaultDims
	}
	return "hash:" + strconv.Itoa(dims)
}

// recognizeEmbedder names the embedder of a memory that records none:
// HashEmbedder's when its vector is what HashEmbedder makes of its text
// (the only embedder of the stores that wrote no record and were not
// named after another), else UnrecordedEmbedder.
func recognizeEmbedder(doc chromem.Document) string {
	want := hashEmbed(doc.Content, len(doc.Embedding))
	for i, x := range doc.Embedding {
		if math.Abs(float64(x-want[i])) > 1e-5 {
			return UnrecordedEmbedder
		}
	}
	return HashEmbedderID(len(doc.Embedding))
}

// Reembedding is the progress of the background re-embedding that Open
// starts when memories' vectors are not the store's embedder's.
type Reembedding struct {
	// Embedder is the EmbedderID the memories are re-embedded with.
	Embedder string `json:"embedder"`
	// Done and Total count the memories re-embedded (or changed or
	// removed meanwhile, which needs no re-embedding) and to re-embed.
	Done  int `json:"done"`
	Total int `json:"total"`
	// Running is set while the re-embedding goes on.
	Running bool `json:"running"`
	// Err is why it stopped before the end, as when the embedder fails;
	// the memories not re-embedded are kept, with their old vectors, and
	// the next Open tries again.
	Err error `json:"-"`
}

// String says what the re-embedding does or did, for a status line:
// "re-embedding 120/600 for gguf:…", empty when there was none.
func (r Reembedding) String() string {
	switch {
	case r.Total == 0:
		return ""
	case r.Err != nil:
		return fmt.Sprintf("re-embedding for %s stopped at %d/%d: %v", r.Embedder, r.Done, r.Total, r.Err)
	case r.Running:
		return fmt.Sprintf("re-embedding %d/%d for %s", r.Done, r.Total, r.Embedder)
	}
	return fmt.Sprintf("re-embedded %d memories for %s", r.Total, r.Embedder)
}

// reembedder runs a store's background re-embedding.
type reembedder struct {
	mu     sync.Mutex
	state  Reembedding
	cancel context.CancelFunc
	done   chan struct{} // closed when the workers have stopped
}

// Reembedding returns the progress of the background re-embedding.
func (s *Store) Reembedding() Reembedding {
	s.re.mu.Lock()
	defer s.re.mu.Unlock()
	return s.re.state
}

// staleKey names one memory waiting to be re-embedded.
type staleKey struct{ scope, id string }

// startReembed starts re-embedding, in the background, every memory
// whose vector the store's embedder did not make.
func (s *Store) startReembed() {
	var stale []staleKey
	for scope, docs := range s.docs {
		for id, d := range docs {
			if !s.current(*d) {
				stale = append(stale, staleKey{scope, id})
			}
		}
	}
	if len(stale) == 0 {
		return
	}
	// Oldest first, so an interrupted run and the next one agree on what
	// is left, and progress reads the same way in every process.
	sort.Slice(stale, func(i, j int) bool {
		a, b := s.docs[stale[i].scope][stale[i].id], s.docs[stale[j].scope][stale[j].id]
		if a.Metadata[keyCreated] != b.Metadata[keyCreated] {
			return a.Metadata[keyCreated] < b.Metadata[keyCreated]
		}
		return stale[i].id < stale[j].id
	})
	ctx, cancel := context.WithCancel(context.Background())
	s.re.state = Reembedding{Embedder: s.opts.EmbedderID, Total: len(stale), Running: true}
	s.re.cancel, s.re.done = cancel, make(chan struct{})
	jobs := make(chan staleKey)
	var wg sync.WaitGroup
	for range min(reembedWorkers, runtime.NumCPU()+1, len(stale)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				if err := s.reembedOne(ctx, k); err != nil {
					s.reembedStopped(err)
					cancel()
				}
			}
		}()
	}
	go func() {
		defer close(s.re.done)
		defer s.pendingChanged() // the last progress event
		defer cancel()
	feed:
		for _, k := range stale {
			select {
			case jobs <- k:
			case <-ctx.Done():
				break feed
			}
		}
		close(jobs)
		wg.Wait()
		s.re.mu.Lock()
		s.re.state.Running = false
		s.re.mu.Unlock()
	}()
}

// reembedOne re-embeds memory k, unless it changed or went meanwhile,
// and counts it done.
func (s *Store) reembedOne(ctx context.Context, k staleKey) error {
	s.mu.RLock()
	d := s.docs[k.scope][k.id]
	stale := d != nil && !s.current(*d)
	s.mu.RUnlock()
	if stale {
		// Embedding, the slow part, runs without the lock: searches and
		// changes go on meanwhile.
		vec, err := s.opts.Embedder(ctx, d.Content)
		if ctx.Err() != nil {
			return nil // Close: not a failure
		}
		if err != nil {
			return fmt.Errorf("memory: embed %s: %w", k.id, err)
		}
		if err := s.storeReembedded(d, vec); err != nil {
			return err
		}
	}
	s.re.mu.Lock()
	s.re.state.Done++
	n := s.re.state.Done
	s.re.mu.Unlock()
	if n == 1 || n%reembedNotifyEvery == 0 {
		s.pendingChanged()
	}
	return nil
}

// storeReembedded writes old's memory with its new vector vec and the
// store's embedder, unless it changed or went since old was read, in
// which case whatever changed it embedded it anew.
func (s *Store) storeReembedded(old *chromem.Document, vec []float32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	scope := old.Metadata[keyScope]
	if s.docs[scope][old.ID] != old {
		return nil
	}
	if err := s.checkDims(vec); err != nil {
		return err
	}
	md := make(map[string]string, len(old.Metadata))
	for k, v := range old.Metadata {
		md[k] = v
	}
	md[keyEmbedder] = s.opts.EmbedderID
	return s.write(chromem.Document{ID: old.ID, Metadata: md, Embedding: vec, Content: old.Content})
}

// reembedStopped records the first error that stopped the re-embedding.
func (s *Store) reembedStopped(err error) {
	s.re.mu.Lock()
	defer s.re.mu.Unlock()
	if s.re.state.Err == nil {
		s.re.state.Err = err
	}
}

// stopReembed cancels the re-embedding and waits for its workers.
func (s *Store) stopReembed() {
	s.re.mu.Lock()
	cancel, done := s.re.cancel, s.re.done
	s.re.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}
