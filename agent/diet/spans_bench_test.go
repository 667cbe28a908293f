package diet

import (
	"fmt"
	"testing"

	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// spanHistory is call i's tool output: a file window overlapping the
// previous one, every fifth call a re-run traceback.
func spanHistory(i int) string {
	if i%5 == 4 {
		return fmt.Sprintf("$ python reproduce.py  # run %d\n%s", i, traceback())
	}
	from := 1 + (i*37)%1800
	return fileWindow(from, from+60)
}

// BenchmarkDietCallSpans times one call (add an assistant message and a
// tool output that repeats earlier spans, then build) after a history of
// 500 messages with the diet active, on the real vault and in memory.
func BenchmarkDietCallSpans(b *testing.B) {
	for _, store := range []string{"vault", "mem"} {
		for _, spans := range []bool{true, false} {
			b.Run(fmt.Sprintf("store=%s/spans=%v", store, spans), func(b *testing.B) {
				var st Store = &memStore{blocks: map[string][]byte{}}
				if store == "vault" {
					st = vaulttest.MustOpen(b)
				}
				p := Defaults()
				p.Spans = spans
				s, err := NewState(p, st, tokens.Default(), "bench", "b")
				if err != nil {
					b.Fatal(err)
				}
				s.Add(Message{Role: "system", Content: "sys"}, Message{Role: "user", Content: "go"})
				for i := 0; s.Len() < 500; i++ {
					s.Add(Message{Role: "assistant", Content: fmt.Sprintf("step %d\n```\nopen fields.py %d\n```", i, i)},
						Message{Role: "tool", Content: spanHistory(i)})
					if _, err := s.Build(); err != nil {
						b.Fatal(err)
					}
				}
				msgs := make([]Message, 0, 2*b.N)
				for i := 0; i < b.N; i++ {
					msgs = append(msgs, Message{Role: "assistant", Content: fmt.Sprintf("next %d\n```\nopen fields.py\n```", i)},
						Message{Role: "tool", Content: spanHistory(1000 + i)})
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					s.Add(msgs[2*i], msgs[2*i+1])
					if _, err := s.Build(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFindSpans times the finder alone: one 4 KB message against the
// index of 250 earlier blocks.
func BenchmarkFindSpans(b *testing.B) {
	x := newSpanIndex()
	for i := 0; i < 250; i++ {
		x.add(i, fmt.Sprintf("ctx:%012x", i), spanHistory(i))
	}
	text := fileWindow(900, 990)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if x.find(text, 250, minSpanChars) == nil {
			b.Fatal("no span found")
		}
	}
}
