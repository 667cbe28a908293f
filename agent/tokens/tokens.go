// Package tokens counts o200k_base tokens exactly, offline, with a cache
// keyed by content hash. The encoding loads once, lazily, on first use.
package tokens

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the tokenizer every count uses.
const Encoding = "o200k_base"

// Limits beyond which a count falls back to the labelled chars/4 estimate:
// the BPE cost grows superlinearly on very long unbroken runs.
const (
	maxExactBytes = 8 << 20
	maxChunkBytes = 256 << 10
	chunkTarget   = 32 << 10
	cacheEntries  = 1 << 17
)

// Count is the result of one count.
type Count struct {
	Tokens int
	// Exact is false when the chars/4 fallback was used.
	Exact bool
}

// Counter counts tokens and caches results by SHA-256 of the text. It is
// safe for concurrent use.
type Counter struct {
	once sync.Once
	enc  *tiktoken.Tiktoken
	err  error

	mu    sync.Mutex
	cache map[[32]byte]Count
}

var (
	defaultOnce sync.Once
	defaultC    *Counter
)

// Default returns the process-wide counter.
func Default() *Counter {
	defaultOnce.Do(func() { defaultC = New() })
	return defaultC
}

// New returns a counter with an empty cache.
func New() *Counter { return &Counter{cache: map[[32]byte]Count{}} }

func (c *Counter) load() error {
	c.once.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		c.enc, c.err = tiktoken.GetEncoding(Encoding)
		if c.err != nil {
			c.err = fmt.Errorf("tokens: load %s: %w", Encoding, c.err)
		}
	})
	return c.err
}

// Estimate is the labelled fallback: one token per four bytes, rounded up.
func Estimate(text string) int { return (len(text) + 3) / 4 }

// Count returns the token count of text (cached by its hash).
func (c *Counter) Count(text string) Count {
	return c.CountHashed(sha256.Sum256([]byte(text)), text)
}

// CountHashed is Count for a caller that already holds sha256(text).
func (c *Counter) CountHashed(sum [32]byte, text string) Count {
	if text == "" {
		return Count{0, true}
	}
	c.mu.Lock()
	if r, ok := c.cache[sum]; ok {
		c.mu.Unlock()
		return r
	}
	c.mu.Unlock()
	r := c.count(text)
	c.mu.Lock()
	if len(c.cache) >= cacheEntries {
		clear(c.cache)
	}
	c.cache[sum] = r
	c.mu.Unlock()
	return r
}

func (c *Counter) count(text string) Count {
	if len(text) > maxExactBytes || c.load() != nil {
		return Count{Estimate(text), false}
	}
	total, exact := 0, true
	for _, chunk := range splitSafe(text) {
		if len(chunk) > maxChunkBytes {
			total += Estimate(chunk)
			exact = false
			continue
		}
		total += len(c.enc.EncodeOrdinary(chunk))
	}
	return Count{total, exact}
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// splitSafe cuts text into chunks of about chunkTarget bytes at points where
// o200k's pre-tokenizer would break anyway: right after a newline that is
// followed by a non-space byte. Counting the chunks separately therefore
// gives the same total as counting the whole text.
func splitSafe(text string) []string {
	if len(text) <= chunkTarget {
		return []string{text}
	}
	var out []string
	start := 0
	for i := start + chunkTarget; i < len(text); i++ {
		if text[i-1] == '\n' && !isSpace(text[i]) {
			out = append(out, text[start:i])
			start = i
			i = start + chunkTarget - 1
		}
	}
	return append(out, text[start:])
}
