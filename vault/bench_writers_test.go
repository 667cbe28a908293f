package vault_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// BenchmarkPutEightAgents measures the vault's write throughput with eight
// agents putting distinct 4 KiB blocks at once through the one *bolt.DB;
// blocks/s is the figure (each Put is a durable transaction).
func BenchmarkPutEightAgents(b *testing.B) {
	v := vaulttest.MustOpen(b)
	body := strings.Repeat("build output line with some text in it\n", 105)
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < b.N; i += 8 {
				if _, err := v.Put([]byte(fmt.Sprintf("agent-%d block %d\n%s", w, i, body)), vault.Meta{Kind: "tool:shell", Agent: fmt.Sprint("agent-", w)}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "blocks/s")
}
