package tokens

import (
	"strings"
	"testing"
)

func TestKnownCounts(t *testing.T) {
	c := New()
	cases := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
		{"<|endoftext|>", 7},
	}
	for _, tc := range cases {
		got := c.Count(tc.text)
		if got.Tokens != tc.want || !got.Exact {
			t.Errorf("Count(%q) = %+v, want %d exact", tc.text, got, tc.want)
		}
	}
}

// TestSplitSafeIsExact checks that chunked counting equals one-piece
// counting on long multi-line text with indentation and blank lines.
func TestSplitSafeIsExact(t *testing.T) {
	c := New()
	if err := c.load(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 200<<10; i++ {
		b.WriteString("def handler_")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("(request):\n    return  value  \n\n  \n")
		if i%13 == 0 {
			b.WriteString("Traceback (most recent call last):\n")
		}
	}
	text := b.String()
	if n := len(splitSafe(text)); n < 4 {
		t.Fatalf("expected several chunks, got %d", n)
	}
	whole := len(c.enc.EncodeOrdinary(text))
	got := c.Count(text)
	if got.Tokens != whole || !got.Exact {
		t.Fatalf("chunked count %+v != whole count %d", got, whole)
	}
}

func TestFallbackAndInvalidUTF8(t *testing.T) {
	c := New()
	long := strings.Repeat("A", maxChunkBytes+10)
	got := c.Count(long)
	if got.Exact || got.Tokens != Estimate(long) {
		t.Fatalf("long unbroken run: %+v, want labelled estimate", got)
	}
	bad := string([]byte{0xff, 0xfe, 'a', 0xc2})
	if got := c.Count(bad); got.Tokens <= 0 || !got.Exact {
		t.Fatalf("invalid UTF-8 count = %+v", got)
	}
}

func TestCacheHit(t *testing.T) {
	c := New()
	a := c.Count("cached text")
	c.mu.Lock()
	n := len(c.cache)
	c.mu.Unlock()
	if b := c.Count("cached text"); a != b || n != 1 {
		t.Fatalf("cache: %v %v entries=%d", a, b, n)
	}
}

func BenchmarkCount64K(b *testing.B) {
	c := New()
	text := strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 64<<10/38)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		c.count(text)
	}
}

// TestLongRunsAreCountedInPieces checks text with a long run and no
// whitespace (minified code, base64) is counted in pieces: the pieces
// rebuild the text byte for byte, none is longer than maxRunBytes, the
// count is labelled inexact and stays within a token per piece of the
// whole count. Counted whole, 200 kB of one "word" took 25 s.
func TestLongRunsAreCountedInPieces(t *testing.T) {
	inputs := []string{
		strings.Repeat("x", 3000),
		"head line\n" + strings.Repeat("aGVsbG8gd29ybGQ=", 200) + " tail words\n",
		strings.Repeat("é", 700) + " " + strings.Repeat("ab", 10),
		string([]byte{0x80, 0x80, 0x80}) + strings.Repeat("\x80", 600), // not UTF-8
		"short words only, nothing long\n",
	}
	c := New()
	for _, in := range inputs {
		parts, cut := splitRuns(in)
		if strings.Join(parts, "") != in {
			t.Fatalf("the pieces of %.20q do not rebuild it", in)
		}
		for _, p := range parts {
			if len(p) > maxRunBytes && !strings.ContainsAny(p, " \t\n\r\v\f") {
				t.Fatalf("a piece of %d bytes without whitespace", len(p))
			}
		}
		if wantCut := in != inputs[len(inputs)-1]; cut != wantCut {
			t.Fatalf("%.20q: cut = %v, want %v", in, cut, wantCut)
		}
		got := c.Count(in)
		if err := c.load(); err != nil {
			t.Fatal(err)
		}
		whole := len(c.enc.EncodeOrdinary(in))
		if got.Exact == cut {
			t.Errorf("%.20q: Exact = %v with cut = %v", in, got.Exact, cut)
		}
		if d := got.Tokens - whole; d < -len(parts) || d > len(parts) {
			t.Errorf("%.20q: %d tokens in pieces, %d whole: off by more than a token per piece", in, got.Tokens, whole)
		}
	}
}

// BenchmarkLongRun counts 200 kB without whitespace, which took 25 s
// counted whole.
func BenchmarkLongRun(b *testing.B) {
	text := strings.Repeat("x", 200_000)
	c := New()
	c.Count("warm")
	for i := 0; i < b.N; i++ {
		c.count(text)
	}
}
