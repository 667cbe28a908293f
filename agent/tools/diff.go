package tools

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// maxEditDistance bounds the Myers search. Beyond it the changed middle is
// shown as one deletion followed by one insertion: still a correct diff,
// computed in bounded time and memory.
const maxEditDistance = 2000

// opKind is one line's fate in a diff.
type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

// diffOp is one line of a diff; text keeps its "\n" except for a last line
// without one.
type diffOp struct {
	kind opKind
	text string
}

// unifiedDiff returns the unified diff turning a into b, with three lines
// of context, "--- oldName" and "+++ newName" headers and "\ No newline at
// end of file" markers; it returns "" when a and b are equal.
func unifiedDiff(oldName, newName, a, b string) string {
	if a == b {
		return ""
	}
	ops := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	out.WriteString("--- " + oldName + "\n+++ " + newName + "\n")
	// aPos[i] and bPos[i] count the old and new lines before ops[i].
	aPos := make([]int, len(ops)+1)
	bPos := make([]int, len(ops)+1)
	for i, op := range ops {
		aPos[i+1], bPos[i+1] = aPos[i], bPos[i]
		if op.kind != opInsert {
			aPos[i+1]++
		}
		if op.kind != opDelete {
			bPos[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		for i < len(ops) && ops[i].kind == opEqual {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-diffContext)
		last := i
		for j := i; j < len(ops) && j-last <= 2*diffContext+1; j++ {
			if ops[j].kind != opEqual {
				last = j
			}
		}
		end := min(len(ops), last+diffContext+1)
		oldN, newN := aPos[end]-aPos[start], bPos[end]-bPos[start]
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aPos[start], oldN), hunkRange(bPos[start], newN))
		for _, op := range ops[start:end] {
			out.WriteByte(byte(op.kind))
			out.WriteString(op.text)
			if !strings.HasSuffix(op.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange formats one side of a hunk header: the first line (from 1, or
// the line before an empty range) and the count, omitted when it is 1.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}

// splitLines splits s after each "\n"; a last line without one is kept.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines returns the line operations turning a into b.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b)-pre-suf)
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{opEqual, l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{opEqual, l})
	}
	return ops
}

// myers computes a shortest edit script with Myers' O(ND) algorithm,
// falling back to delete-all, insert-all past maxEditDistance.
func myers(a, b []string) []diffOp {
	ids := map[string]int{}
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x0, y0 := intern(a), intern(b)
	n, m := len(x0), len(y0)
	off := n + m + 1
	v := make([]int, 2*off+1)
	// trace[d] holds v[k] for k in [-d-1, d+1] as it was before step d.
	var trace [][]int
	for d := 0; d <= min(n+m, maxEditDistance); d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && x0[x] == y0[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, n, m)
			}
		}
	}
	ops := make([]diffOp, 0, n+m)
	for _, l := range a {
		ops = append(ops, diffOp{opDelete, l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{opInsert, l})
	}
	return ops
}

// backtrack walks the trace back from (n, m) and returns the edit script.
func backtrack(a, b []string, trace [][]int, n, m int) []diffOp {
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vd := trace[d]
		at := func(k int) int { return vd[k+d+1] }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, diffOp{opEqual, a[x-1]})
			x--
			y--
		}
		if prevK == k+1 {
			rev = append(rev, diffOp{opInsert, b[prevY]})
		} else {
			rev = append(rev, diffOp{opDelete, a[prevX]})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, diffOp{opEqual, a[x-1]})
		x--
		y--
	}
	ops := make([]diffOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

// UnifiedDiff returns the unified diff turning a into b as the edit tools
// show it (see unifiedDiff) with the numbers of lines it adds and deletes;
// "" and zeros when a and b are equal. Checkpoints preview a rewind with it.
func UnifiedDiff(oldName, newName, a, b string) (diff string, added, deleted int) {
	diff = unifiedDiff(oldName, newName, a, b)
	added, deleted = diffStat(diff)
	return diff, added, deleted
}
