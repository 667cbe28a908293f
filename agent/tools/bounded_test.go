package tools

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name       string
		head, tail int
		writes     []string
		want       string
	}{
		{"fits", 4, 4, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 3, 3, []string{"abcdef"}, "abcdef"},
		{"cut in one write", 2, 2, []string{"abcdefgh"}, "ab\n… [4 bytes cut: kept the first 2 and the last 2 of 8] …\ngh"},
		{"ring wraps", 2, 3, []string{"ab", "cd", "ef", "gh", "ij"}, "ab\n… [5 bytes cut: kept the first 2 and the last 3 of 10] …\nhij"},
		{"no tail", 3, 0, []string{"abcdef"}, "abc\n… [3 bytes cut: kept the first 3 and the last 0 of 6] …\n"},
		{"utf8 edges", 2, 2, []string{"é" + strings.Repeat("x", 10) + "é"}, "é\n… [10 bytes cut: kept the first 2 and the last 2 of 14] …\né"},
		{"split rune dropped", 2, 2, []string{"aé" + strings.Repeat("x", 10) + "éb"}, "a\n… [14 bytes cut: kept the first 1 and the last 1 of 16] …\nb"},
	}
	for _, tt := range tests {
		b := NewHeadTail(tt.head, tt.tail)
		var total int
		for _, w := range tt.writes {
			n, err := b.Write([]byte(w))
			if err != nil || n != len(w) {
				t.Fatalf("%s: Write = %d, %v", tt.name, n, err)
			}
			total += n
		}
		if got := b.String(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if b.Total() != int64(total) {
			t.Errorf("%s: Total = %d, want %d", tt.name, b.Total(), total)
		}
	}
}

func TestHeadTailStaysBounded(t *testing.T) {
	b := NewHeadTail(1<<10, 1<<10)
	chunk := []byte(strings.Repeat("0123456789", 1000))
	for i := 0; i < 10000; i++ { // 100 MB
		b.Write(chunk)
	}
	if len(b.head) > 1<<10 || len(b.ring) > 1<<10 {
		t.Fatalf("buffers grew: head %d, ring %d", len(b.head), len(b.ring))
	}
	if !strings.Contains(b.String(), "cut") || b.Total() != 100_000_000 {
		t.Errorf("total %d, text %q", b.Total(), b.String()[:100])
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("y", 200_000)
	tests := []struct {
		in   string
		max  int
		want []string // "text/full"
	}{
		{"a\nb\n", 10, []string{"a/1", "b/1"}},
		{"a\r\nb", 10, []string{"a/1", "b/1"}},
		{"\n\n", 10, []string{"/0", "/0"}},
		{"", 10, nil},
		{"abcdef\nxy", 3, []string{"abc/6", "xy/2"}},
		{long + "\nz\n", 5, []string{"yyyyy/200000", "z/1"}},
		{long, 5, []string{"yyyyy/200000"}},
	}
	for _, tt := range tests {
		lr := newLineReader(strings.NewReader(tt.in), tt.max)
		var got []string
		for {
			line, full, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s/%d", line, full))
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%.20q max %d: got %v, want %v", tt.in, tt.max, got, tt.want)
		}
		if lr.line != len(tt.want) {
			t.Errorf("%.20q: line count %d", tt.in, lr.line)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		line  string
		at    int
		limit int
		want  string
	}{
		{"short", 0, 10, "short"},
		{"abcdefghijklmnop", 0, 4, "abcd… [16 bytes]"},
		{"abcdefghijklmnop", 12, 4, "…lmno… [16 bytes]"},
		{"abcdefghijklmnop", 15, 4, "…mnop"},
		{"ab\xffcd", 0, 10, "ab\uFFFDcd"},
	}
	for _, tt := range tests {
		if got := clipLine(tt.line, tt.at, tt.limit); got != tt.want {
			t.Errorf("clipLine(%q, %d, %d) = %q, want %q", tt.line, tt.at, tt.limit, got, tt.want)
		}
	}
	if got := clipText("héllo", 2); got != "h\n… [output cut at 1 of 6 bytes]\n" {
		t.Errorf("clipText = %q", got)
	}
}
