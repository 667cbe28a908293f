package diet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kwsdev/kws/vault"
)

// taskText is an issue statement of about 1.6 KB.
func taskText() string {
	var b strings.Builder
	b.WriteString("Issue: TimeDelta serialization precision\n\n")
	for i := 0; b.Len() < 1600; i++ {
		fmt.Fprintf(&b, "Step %d: `fields.TimeDelta(precision=\"milliseconds\")` returns %d instead of %d.\n", i, 344+i, 345+i)
	}
	return b.String()
}

// fileWindow renders lines [from, to] of a numbered source file as the
// editor shows them.
func fileWindow(from, to int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[File: src/marshmallow/fields.py (2000 lines total)]\n(%d more lines above)\n", from-1)
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d:        value = self._serialize_part(obj, attr, %d)\n", i, i%7)
	}
	fmt.Fprintf(&b, "(%d more lines below)\n", 2000-to)
	return b.String()
}

func traceback() string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&b, "  File \"/repo/src/pkg/module_%d.py\", line %d, in handler_%d\n    result = step_%d(payload, options)\n", i, 100+i, i, i)
	}
	b.WriteString("ValueError: precision must be one of days, seconds, milliseconds\n")
	return b.String()
}

// findIn indexes earlier as blocks 0.. and splits text against them.
func findIn(text string, earlier ...string) ([]vault.Span, map[string][]byte) {
	x := newSpanIndex()
	blocks := map[string][]byte{}
	for i, e := range earlier {
		id := vault.IDFor([]byte(e))
		blocks[id] = []byte(e)
		x.add(i, id, e)
	}
	return x.find(text, len(earlier), minSpanChars), blocks
}

// checkSpans resolves parts against blocks, compares with text and
// returns the literal bytes and the segments.
func checkSpans(t *testing.T, parts []vault.Span, blocks map[string][]byte, text string) (string, []vault.Span) {
	t.Helper()
	got, err := vault.ResolveSpans(parts, func(id string) ([]byte, error) { return blocks[id], nil })
	if err != nil || string(got) != text {
		t.Fatalf("parts %+v resolve to %q, %v", parts, got, err)
	}
	var lit strings.Builder
	var segs []vault.Span
	for _, p := range parts {
		if p.IsSeg() {
			segs = append(segs, p)
		} else {
			lit.Write(p.Lit)
		}
	}
	return lit.String(), segs
}

func TestFindTaskTextHandedToSecondRole(t *testing.T) {
	task := taskText()
	first := "You are the planner. Solve this task:\n" + task + "Plan before you edit."
	second := "You are the reviewer. The planner worked on this task:\n" + task + "Review the diff below.\n--- a/x\n+++ b/x\n"
	parts, blocks := findIn(second, first)
	lit, segs := checkSpans(t, parts, blocks, second)
	if len(segs) != 1 || segs[0].N < len(task) {
		t.Fatalf("want one segment covering the %d-byte task, got %+v", len(task), segs)
	}
	if !strings.HasPrefix(lit, "You are the reviewer.") || !strings.Contains(lit, "Review the diff below.") {
		t.Fatalf("new parts not kept exact: %q", lit)
	}
}

func TestFindOverlappingFileWindows(t *testing.T) {
	first, second := fileWindow(1100, 1200), fileWindow(1150, 1250)
	parts, blocks := findIn(second, first)
	lit, segs := checkSpans(t, parts, blocks, second)
	overlap := first[strings.Index(first, "\n1150:")+1 : strings.Index(first, "(800 more")]
	if len(segs) != 1 || segs[0].N < len(overlap) {
		t.Fatalf("want one segment over lines 1150-1200 (%d bytes), got %+v", len(overlap), segs)
	}
	if !strings.Contains(lit, "1201:") || !strings.Contains(lit, "1250:") || strings.Contains(lit, "1199:") {
		t.Fatalf("literal parts should hold lines 1201-1250 only: %q", lit)
	}
}

func TestFindRepeatedTraceback(t *testing.T) {
	tb := traceback()
	first := "$ python reproduce.py\n" + tb
	second := "$ python reproduce.py --verbose\nloading config\n" + tb + "exit status 1\n"
	parts, blocks := findIn(second, "unrelated output of ls\n"+strings.Repeat("file.txt\n", 80), first)
	lit, segs := checkSpans(t, parts, blocks, second)
	if len(segs) != 1 || segs[0].ID != vault.IDFor([]byte(first)) || segs[0].N < len(tb) {
		t.Fatalf("want the traceback as one segment of the first run, got %+v", segs)
	}
	if lit != "$ python reproduce.py --verbose\nloading configexit status 1\n" { // the span starts at the shared "\n"
		t.Fatalf("literal parts: %q", lit)
	}
}

func TestFindIgnoresShortRepeatsAndLaterBlocks(t *testing.T) {
	short := strings.Repeat("a line that repeats\n", 10)
	if parts, _ := findIn("new\n"+short+"end\n", "old\n"+short); parts != nil {
		t.Fatalf("a %d-byte repeat became %+v", len(short), parts)
	}
	x := newSpanIndex()
	tb := traceback()
	x.add(5, vault.IDFor([]byte(tb)), tb)
	if parts := x.find("x\n"+tb, 5, minSpanChars); parts != nil {
		t.Fatalf("a block of the same or a later entry was used: %+v", parts)
	}
}

func TestFindKeepsUTF8Whole(t *testing.T) {
	tb := traceback()
	first := "é" + tb + "ü"
	second := "ɩ" + tb + "ö" // ɩ and é share their last byte, ö and ü their first
	parts, blocks := findIn(second, first)
	checkSpans(t, parts, blocks, second)
	for _, p := range parts {
		if !p.IsSeg() && !strings.HasPrefix(string(p.Lit), "ɩ") && !strings.HasPrefix(string(p.Lit), "ö") {
			t.Fatalf("literal split inside a character: %q", p.Lit)
		}
	}
}
