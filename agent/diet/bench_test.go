package diet

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// memStore keeps blocks in memory, to time the diet without disk syncs.
type memStore struct {
	mu     sync.Mutex
	blocks map[string][]byte
}

func (m *memStore) PutMany(bs []vault.Block) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, len(bs))
	for i, b := range bs {
		ids[i] = vault.IDFor(b.Data)
		m.blocks[ids[i]] = bytes.Clone(b.Data)
	}
	return ids, nil
}

func (m *memStore) Get(id string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.blocks[id]; ok {
		return b, nil
	}
	return nil, vault.ErrNotFound
}

// BenchmarkDietCall times one call (add an assistant message and a 2 KB
// tool output, then build) after a history of 20 or 500 messages, with
// the diet active, on the real vault and on an in-memory store, and
// reports the median and the slowest call (ms-p50, ms-max).
func BenchmarkDietCall(b *testing.B) {
	for _, store := range []string{"vault", "mem"} {
		for _, hist := range []int{20, 500} {
			b.Run(fmt.Sprintf("store=%s/history=%d", store, hist), func(b *testing.B) {
				var st Store = &memStore{blocks: map[string][]byte{}}
				if store == "vault" {
					st = vaulttest.MustOpen(b)
				}
				p := Defaults()
				p.TriggerTokens = 2000
				s, err := NewState(p, st, tokens.Default(), "bench", "b")
				if err != nil {
					b.Fatal(err)
				}
				s.Add(Message{Role: "system", Content: "sys"}, Message{Role: "user", Content: "go"})
				for i := 0; s.Len() < hist; i++ {
					s.Add(Message{Role: "assistant", Content: fmt.Sprintf("step %d\n```\npytest -k %d\n```", i, i)},
						Message{Role: "tool", Content: toolOutput(i, 2000)})
					if _, err := s.Build(); err != nil {
						b.Fatal(err)
					}
				}
				// Each timed call adds two new messages: the cost measured
				// is hashing and counting the new content plus the build.
				msgs := make([]Message, 0, 2*b.N)
				for i := 0; i < b.N; i++ {
					msgs = append(msgs, Message{Role: "assistant", Content: fmt.Sprintf("next %d\n```\npytest -k n%d\n```", i, i)},
						Message{Role: "tool", Content: toolOutput(100000+i, 2000)})
				}
				took := make([]time.Duration, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					s.Add(msgs[2*i], msgs[2*i+1])
					if _, err := s.Build(); err != nil {
						b.Fatal(err)
					}
					took[i] = time.Since(start)
				}
				b.StopTimer()
				slices.Sort(took)
				b.ReportMetric(float64(took[(b.N-1)/2].Microseconds())/1000, "ms-p50")
				b.ReportMetric(float64(took[b.N-1].Microseconds())/1000, "ms-max")
			})
		}
	}
}
