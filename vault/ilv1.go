package vault

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// The il:v1 body format is byte-oriented and lossless for any input.
//
// The input is split on "\n" into lines. In each line every « (0xC2 0xAB) is
// written ««. Optional header lines «=1»P … «=9»P define path prefixes P (at
// least one byte, no «, » or "\n"); the header ends at the first line that is
// not a definition. In body lines «D» (one digit) stands for prefix D, and a
// line that is exactly «+N» (N ≥ 1, no leading zero) repeats the previous
// line N more times. Anything else after « is malformed.

// ErrILMalformed is wrapped by every error DecodeIL returns: the body is not
// one EncodeIL could have produced, or it would expand beyond the size cap.
var ErrILMalformed = errors.New("vault: malformed il:v1 body")

const (
	ilMark      = "«"
	ilClose     = "»"
	ilMaxDict   = 9
	ilMinPrefix = 8
	ilMaxPrefix = 512     // longest prefix considered
	ilMaxSeen   = 1 << 18 // distinct prefixes counted
	ilMaxCands  = 512     // candidates kept for the greedy dictionary pass
	ilRatio     = 64      // decoded bytes allowed per body byte …
	ilSlack     = 1 << 20 // … plus this many
	ilRefCost   = 5       // len("«1»")
	ilDefCost   = 7       // len("«=1»") + "\n"
	ilCapBudget = ilRatio * 7
)

// ilLimit is the largest decoded size DecodeIL accepts for a body of n bytes.
func ilLimit(n int) int64 { return ilRatio*int64(n) + ilSlack }

// EncodeIL returns the il:v1 body for data. DecodeIL(EncodeIL(x)) returns x
// for every byte slice x, including empty, binary and invalid UTF-8 input.
func EncodeIL(data []byte) []byte {
	lines := bytes.Split(data, []byte("\n"))
	dict := ilChooseDict(lines)
	out := ilEncode(lines, dict, false)
	if len(dict) > 0 {
		if plain := ilEncode(lines, nil, false); len(plain) <= len(out) {
			out = plain
		}
	}
	if int64(len(data)) > ilLimit(len(out)) {
		// Too compressible for the decoder's expansion cap: fall back to
		// repeat directives whose expansion is bounded one by one.
		out = ilEncode(lines, nil, true)
	}
	return out
}

type ilSeg struct {
	s, e int
	ref  int // dictionary index, or -1 for literal bytes
}

// ilEncode writes the body. In capped mode (used without a dictionary) each
// repeat directive expands to at most ilRatio times its own size.
func ilEncode(lines [][]byte, dict [][]byte, capped bool) []byte {
	size := len(lines)
	for _, l := range lines {
		size += len(l)
	}
	out := make([]byte, 0, size+size/16)
	for i, p := range dict {
		out = append(out, "«="...)
		out = append(out, byte('1'+i))
		out = append(out, ilClose...)
		out = append(out, p...)
		out = append(out, '\n')
	}
	var segs, tmp []ilSeg
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && bytes.Equal(lines[j], lines[i]) {
			j++
		}
		if i > 0 {
			out = append(out, '\n')
		}
		start := len(out)
		segs, tmp = ilSegment(lines[i], dict, segs, tmp)
		for _, sg := range segs {
			if sg.ref >= 0 {
				out = append(out, ilMark...)
				out = append(out, byte('1'+sg.ref))
				out = append(out, ilClose...)
			} else {
				out = ilAppendEscaped(out, lines[i][sg.s:sg.e])
			}
		}
		end := len(out)
		for k := j - i - 1; k > 0; {
			n := k
			if capped {
				n = min(k, ilCapBudget/(len(lines[i])+1))
			}
			dir := ilMark + "+" + strconv.Itoa(n) + ilClose
			if n > 0 && int64(len(dir)+1) < int64(n)*int64(end-start+1) {
				out = append(out, '\n')
				out = append(out, dir...)
				k -= n
				continue
			}
			if n == 0 {
				n = k
			}
			for range n {
				out = append(out, '\n')
				out = append(out, out[start:end]...)
			}
			k -= n
		}
		i = j
	}
	return out
}

// ilSegment splits line into literal runs and dictionary references,
// replacing longer prefixes (which come first in dict) first. Any such split
// decodes exactly: each literal run is escaped on its own, and a literal byte
// never pairs with the « that starts the next reference.
func ilSegment(line []byte, dict [][]byte, segs, tmp []ilSeg) ([]ilSeg, []ilSeg) {
	segs = append(segs[:0], ilSeg{0, len(line), -1})
	for d, p := range dict {
		if len(p) > len(line) {
			continue
		}
		tmp = tmp[:0]
		for _, sg := range segs {
			for sg.ref < 0 && sg.e-sg.s >= len(p) {
				k := bytes.Index(line[sg.s:sg.e], p)
				if k < 0 {
					break
				}
				if k > 0 {
					tmp = append(tmp, ilSeg{sg.s, sg.s + k, -1})
				}
				tmp = append(tmp, ilSeg{sg.s + k, sg.s + k + len(p), d})
				sg.s += k + len(p)
			}
			if sg.e > sg.s || sg.ref >= 0 {
				tmp = append(tmp, sg)
			}
		}
		segs, tmp = tmp, segs
	}
	return segs, tmp
}

// ilAppendEscaped appends b with every « doubled.
func ilAppendEscaped(out, b []byte) []byte {
	for {
		k := bytes.Index(b, []byte(ilMark))
		if k < 0 {
			return append(out, b...)
		}
		out = append(out, b[:k+len(ilMark)]...)
		out = append(out, ilMark...)
		b = b[k+len(ilMark):]
	}
}

// DecodeIL reverses EncodeIL. A malformed body, or one that would decode to
// more than 64 bytes per body byte plus 1 MiB, yields an error wrapping
// ErrILMalformed; DecodeIL never panics.
func DecodeIL(body []byte) ([]byte, error) {
	limit := ilLimit(len(body))
	bad := func(n int, format string, args ...any) ([]byte, error) {
		return nil, fmt.Errorf("%w: line %d: %s", ErrILMalformed, n, fmt.Sprintf(format, args...))
	}
	var dict [][]byte
	line, rest, more := ilNextLine(body)
	n := 1
	for bytes.HasPrefix(line, []byte("«=")) {
		if len(line) < 6 || line[3] != byte('1'+len(dict)) || len(dict) == ilMaxDict ||
			!bytes.HasPrefix(line[4:], []byte(ilClose)) {
			return bad(n, "bad definition %.20q (want «=%d»prefix)", line, len(dict)+1)
		}
		p := line[6:]
		if len(p) == 0 || bytes.Contains(p, []byte(ilMark)) || bytes.Contains(p, []byte(ilClose)) {
			return bad(n, "bad prefix in definition %d", len(dict)+1)
		}
		dict = append(dict, p)
		if !more {
			return bad(n, "definitions without body")
		}
		line, rest, more = ilNextLine(rest)
		n++
	}
	out := make([]byte, 0, min(int64(2*len(body)), limit))
	prev := -1 // start of the previous decoded line in out
	for {
		if reps, ok := ilRepeat(line); ok {
			if prev < 0 {
				return bad(n, "repeat with no previous line")
			}
			if reps == 0 || reps > (limit-int64(len(out)))/int64(len(out)-prev+1) {
				return bad(n, "bad or oversized repeat %.24q", line)
			}
			end := len(out)
			for range reps {
				out = append(out, '\n')
				out = append(out, out[prev:end]...)
			}
			prev = len(out) - (end - prev)
		} else {
			if prev >= 0 {
				out = append(out, '\n')
			}
			prev = len(out)
			for {
				k := bytes.Index(line, []byte(ilMark))
				if k < 0 {
					out = append(out, line...)
					break
				}
				out = append(out, line[:k]...)
				t := line[k+len(ilMark):]
				switch {
				case bytes.HasPrefix(t, []byte(ilMark)):
					out = append(out, ilMark...)
					line = t[len(ilMark):]
				case len(t) >= 3 && t[0] >= '1' && t[0] <= '9' && bytes.HasPrefix(t[1:], []byte(ilClose)):
					d := int(t[0] - '1')
					if d >= len(dict) {
						return bad(n, "undefined dictionary entry «%c»", t[0])
					}
					out = append(out, dict[d]...)
					line = t[3:]
				default:
					return bad(n, "stray « before %.8q", t)
				}
				if int64(len(out)) > limit {
					return bad(n, "decoded size exceeds cap")
				}
			}
		}
		if int64(len(out)) > limit {
			return bad(n, "decoded size exceeds cap")
		}
		if !more {
			return out, nil
		}
		line, rest, more = ilNextLine(rest)
		n++
	}
}

// ilNextLine returns the text before the first "\n", the text after it, and
// whether there was a "\n" at all.
func ilNextLine(b []byte) (line, rest []byte, more bool) {
	k := bytes.IndexByte(b, '\n')
	if k < 0 {
		return b, nil, false
	}
	return b[:k], b[k+1:], true
}

// ilRepeat reports whether line has the shape «+…» and, if so, its count;
// a count of 0 means the digits are not a valid N.
func ilRepeat(line []byte) (int64, bool) {
	if !bytes.HasPrefix(line, []byte("«+")) || !bytes.HasSuffix(line, []byte(ilClose)) || len(line) < 5 {
		return 0, false
	}
	digits := line[3 : len(line)-len(ilClose)]
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' {
		return 0, true
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, true
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// ilDelim marks the bytes that end a path token.
var ilDelim = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\v\f\"'`()[]{}<>,;:=|") {
		t[c] = true
	}
	return t
}()

type ilCand struct {
	p []byte // the prefix, as first seen in the input
	n int    // path tokens that start with p
}

// ilCount is a pointer-free ilCand (line index and byte range), so the
// garbage collector never scans the counting table.
type ilCount struct{ line, s, e, n int }

// ilChooseDict picks up to nine directory prefixes of path tokens by greedy
// marginal byte gain and returns them longest first. Counting is linear in
// the input: each token is hashed once, left to right, and every "/" in it
// ends one candidate prefix; prefix length and candidate count are capped.
func ilChooseDict(lines [][]byte) [][]byte {
	index := map[uint64]int32{}
	var counts []ilCount
	for li, line := range lines {
		for i := 0; i < len(line); {
			if ilDelim[line[i]] {
				i++
				continue
			}
			h := uint64(14695981039346656037)
			j := i
			for ; j < len(line) && j-i < ilMaxPrefix && !ilDelim[line[j]]; j++ {
				c := line[j]
				if c == 0xC2 && j+1 < len(line) && (line[j+1] == 0xAB || line[j+1] == 0xBB) {
					break // prefixes may not contain « or »
				}
				h = (h ^ uint64(c)) * 1099511628211
				if c == '/' && j+1-i >= ilMinPrefix {
					if k, ok := index[h]; ok {
						counts[k].n++
					} else if len(counts) < ilMaxSeen {
						index[h] = int32(len(counts))
						counts = append(counts, ilCount{li, i, j + 1, 1})
					}
				}
			}
			for j < len(line) && !ilDelim[line[j]] {
				j++
			}
			i = j
		}
	}
	gain := func(c *ilCand) int { return c.n*(len(c.p)-ilRefCost) - len(c.p) - ilDefCost }
	var cands []*ilCand
	for _, ct := range counts {
		if c := (&ilCand{lines[ct.line][ct.s:ct.e], ct.n}); gain(c) > 0 {
			cands = append(cands, c)
		}
	}
	sort.Slice(cands, func(a, b int) bool {
		ga, gb := gain(cands[a]), gain(cands[b])
		if ga != gb {
			return ga > gb
		}
		return bytes.Compare(cands[a].p, cands[b].p) < 0
	})
	cands = cands[:min(len(cands), ilMaxCands)]
	var chosen []*ilCand
	picked := make([]bool, len(cands))
	for len(chosen) < ilMaxDict {
		best, bestGain := -1, 0
		for i, c := range cands {
			if g := ilMarginal(c, chosen); !picked[i] && g > bestGain {
				best, bestGain = i, g
			}
		}
		if best < 0 {
			break
		}
		picked[best] = true
		chosen = append(chosen, cands[best])
	}
	sort.SliceStable(chosen, func(a, b int) bool { return len(chosen[a].p) > len(chosen[b].p) })
	dict := make([][]byte, len(chosen))
	for i, c := range chosen {
		dict[i] = c.p
	}
	return dict
}

// ilMarginal estimates the bytes saved by adding c to the chosen prefixes:
// tokens already covered by a longer chosen prefix gain nothing, and tokens
// covered by a shorter one gain only the difference.
func ilMarginal(c *ilCand, chosen []*ilCand) int {
	covered, tokens := 0, c.n
	for _, d := range chosen {
		switch {
		case len(d.p) < len(c.p) && bytes.HasPrefix(c.p, d.p):
			covered = max(covered, len(d.p)-ilRefCost)
		case len(d.p) > len(c.p) && bytes.HasPrefix(d.p, c.p):
			outer := true
			for _, e := range chosen {
				if len(e.p) > len(c.p) && len(e.p) < len(d.p) && bytes.HasPrefix(d.p, e.p) && bytes.HasPrefix(e.p, c.p) {
					outer = false
				}
			}
			if outer {
				tokens -= d.n
			}
		}
	}
	return tokens*(len(c.p)-ilRefCost-covered) - len(c.p) - ilDefCost
}
