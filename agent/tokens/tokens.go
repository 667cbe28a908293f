// Package tokens counts o200k_base tokens exactly, offline, with a cache
// keyed by content hash. The encoding loads once, lazily, on first use.
package tokens

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the tokenizer every count uses.
const Encoding = "o200k_base"

// Limits beyond which a count falls back to the labelled chars/4 estimate:
// the BPE cost grows superlinearly on very long unbroken runs. A run of
// more than maxRunBytes without whitespace (minified code, base64, a hex
// dump) is counted in pieces of maxRunBytes: counting 200 kB of one
// "word" whole took 25 s; in pieces it costs what as much text in words
// does (0.25 s on a loaded 2-core machine). The total is off by at most a
// token per piece, so such a count is not Exact.
const (
	maxExactBytes = 8 << 20
	maxChunkBytes = 256 << 10
	chunkTarget   = 32 << 10
	maxRunBytes   = 128
	cacheEntries  = 1 << 17
)

// Count is the result of one count.
type Count struct {
	Tokens int
	// Exact is false when the chars/4 fallback was used, or a run without
	// whitespace was counted in pieces.
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
		parts, cut := splitRuns(chunk)
		if cut {
			exact = false
		}
		for _, part := range parts {
			total += len(c.enc.EncodeOrdinary(part))
		}
	}
	return Count{total, exact}
}

// splitRuns returns chunk whole when no run of non-whitespace bytes in it
// is longer than maxRunBytes, and cut false. Otherwise each such run is cut
// into pieces of at most maxRunBytes, at rune boundaries, and the text
// between runs stays whole.
func splitRuns(chunk string) (parts []string, cut bool) {
	start, run := 0, 0
	for i := 0; i <= len(chunk); i++ {
		if i < len(chunk) && !isSpace(chunk[i]) {
			continue
		}
		if i-run > maxRunBytes {
			if run > start {
				parts = append(parts, chunk[start:run])
			}
			for p := run; p < i; {
				end := min(i, p+maxRunBytes)
				for end < i && end > p+utf8.UTFMax && !utf8.RuneStart(chunk[end]) {
					end--
				}
				parts = append(parts, chunk[p:end])
				p = end
			}
			start, cut = i, true
		}
		run = i + 1
	}
	if !cut {
		return []string{chunk}, false
	}
	if start < len(chunk) {
		parts = append(parts, chunk[start:])
	}
	return parts, true
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
