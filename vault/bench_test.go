package vault

import (
	"fmt"
	"io"
	"math/rand"
	"strings"
	"sync"
	"testing"
)

var benchWords = strings.Fields(`error test pytest auth token refresh session handler request response
timeout retry config build compile link module package import function class method field value
parser lexer cache index query search vault block agent shell docker kubernetes deploy release
commit branch merge diff patch file path line column warning failed passed skipped assert panic`)

// benchText returns a deterministic pseudo-log of about n bytes.
func benchText(r *rand.Rand, n int) []byte {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "%s/%s_%d.go:%d: %s %s %s\n", benchWords[r.Intn(len(benchWords))],
			benchWords[r.Intn(len(benchWords))], r.Intn(500), r.Intn(900),
			benchWords[r.Intn(len(benchWords))], benchWords[r.Intn(len(benchWords))], benchWords[r.Intn(len(benchWords))])
	}
	return []byte(b.String()[:n])
}

func BenchmarkPut4K(b *testing.B) {
	v := MustOpen(b)
	r := rand.New(rand.NewSource(1))
	blocks := make([][]byte, b.N)
	for i := range blocks {
		blocks[i] = benchText(r, 4096)
	}
	b.SetBytes(4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.Put(blocks[i], Meta{Kind: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}

var (
	big100k     *Vault
	big100kIDs  []string
	big100kOnce sync.Once
)

// vault100k builds, once per process, a vault of 100,000 blocks of 512
// bytes, written in batches of 1,000.
func vault100k(b *testing.B) (*Vault, []string) {
	big100kOnce.Do(func() {
		v, err := OpenDir(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewSource(2))
		for batch := 0; batch < 100; batch++ {
			blocks := make([]Block, 1000)
			for i := range blocks {
				blocks[i] = Block{Data: benchText(r, 512), Meta: Meta{Kind: "bench", Topics: []string{benchWords[r.Intn(len(benchWords))]}}}
			}
			ids, err := v.PutMany(blocks)
			if err != nil {
				b.Fatal(err)
			}
			big100kIDs = append(big100kIDs, ids...)
		}
		big100k = v
	})
	if big100k == nil {
		b.Fatal("100k vault setup failed")
	}
	return big100k, big100kIDs
}

func BenchmarkGet100k(b *testing.B) {
	v, ids := vault100k(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.Get(ids[(i*7919)%len(ids)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch100k(b *testing.B) {
	v, _ := vault100k(b)
	if _, err := v.Search("warm", 1); err != nil {
		b.Fatal(err)
	}
	queries := []string{"auth token refresh failed", "kubernetes deploy timeout", "pytest assert", "vault/index_42.go"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.Search(queries[i%len(queries)], 10); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexLoad100k measures the first search after opening a vault
// of 100,000 blocks: it builds the in-memory postings.
func BenchmarkIndexLoad100k(b *testing.B) {
	v, _ := vault100k(b)
	for i := 0; i < b.N; i++ {
		fresh := &Vault{db: v.db, path: v.path}
		if _, err := fresh.Search("auth", 1); err != nil {
			b.Fatal(err)
		}
	}
}

// benchBlocks opens a vault holding n random blocks of size bytes and
// returns it with their ids.
func benchBlocks(b *testing.B, n, size int) (*Vault, []string) {
	v := MustOpen(b)
	r := rand.New(rand.NewSource(3))
	ids := make([]string, n)
	for i := range ids {
		id, err := v.Put(benchText(r, size), Meta{Kind: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = id
	}
	return v, ids
}

// BenchmarkGetVerified measures Get, which hashes every block it returns
// to check it against its id, in bytes of block data per second.
func BenchmarkGetVerified(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			v, ids := benchBlocks(b, 32, size)
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := v.Get(ids[i%len(ids)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteToVerified measures WriteTo, the path of kws vault get:
// the block is hashed in place and written, in bytes of block data per
// second.
func BenchmarkWriteToVerified(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20, 16 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			v, ids := benchBlocks(b, 8, size)
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := v.WriteTo(ids[i%len(ids)], io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
