package diet

import (
	"strings"
	"unicode/utf8"

	"github.com/kwsdev/kws/vault"
)

// Repeated spans: a message that repeats a long span of an earlier stored
// block (the same task text handed to another role, a file window that
// overlaps an earlier one, a re-run printing the same traceback) is sent
// with its new parts exact and each repeated span as <il:seg/>, a ref to
// the exact bytes of the earlier block.
//
// The finder is line-anchored: every line of at least spanAnchorChars
// bytes of a stored block is indexed by hash; a new message looks up its
// lines, extends each candidate match line by line and then byte by byte
// in both directions, and keeps the longest. Matches are verified byte for
// byte, so hash collisions cost time, never exactness. The hash is fixed
// (FNV-1a), so the same input yields the same prompt.
const (
	minSpanChars    = 400       // shorter repeats are sent exact: a ref would not pay
	spanAnchorChars = 16        // shorter lines ("}", blank) anchor nothing
	spanPostings    = 4         // newest occurrences kept per anchor line
	spanIndexBytes  = 256 << 10 // only this head of a block is indexed
	spanFindBytes   = 1 << 20   // longer messages are not searched
	spanHintChars   = 48        // a segment's hint: its first line, clipped
)

type spanLoc struct{ src, line int32 }

// spanSrc is one stored block as the finder sees it.
type spanSrc struct {
	entry  int
	id     string
	data   string
	starts []int // line start offsets, then len(data)
}

// spanIndex maps anchor line hashes to where they occur in stored blocks.
type spanIndex struct {
	srcs []spanSrc
	post map[uint64][]spanLoc
}

func newSpanIndex() *spanIndex {
	return &spanIndex{post: map[uint64][]spanLoc{}}
}

// lineHash is FNV-1a of line.
func lineHash(line string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(line); i++ {
		h = (h ^ uint64(line[i])) * 1099511628211
	}
	return h
}

// lineStarts returns the offset of every line of text (each line keeps its
// "\n"), then len(text).
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			starts = append(starts, i+1)
		}
	}
	return append(starts, len(text))
}

// add indexes the block id (message entry) as a source of spans: its
// lines within the first spanIndexBytes.
func (x *spanIndex) add(entry int, id, data string) {
	if len(data) > spanIndexBytes {
		data = data[:strings.LastIndexByte(data[:spanIndexBytes], '\n')+1]
	}
	src := spanSrc{entry: entry, id: id, data: data, starts: lineStarts(data)}
	k := int32(len(x.srcs))
	x.srcs = append(x.srcs, src)
	for j := 0; j+1 < len(src.starts); j++ {
		a, b := src.starts[j], src.starts[j+1]
		if b-a < spanAnchorChars {
			continue
		}
		h := lineHash(data[a:b])
		locs := append(x.post[h], spanLoc{k, int32(j)})
		if len(locs) > spanPostings {
			locs = append(locs[:0], locs[1:]...)
		}
		x.post[h] = locs
	}
}

// spanMatch is text[ns:ne] == src.data[ss:ss+ne-ns].
type spanMatch struct {
	src        int
	ns, ne, ss int
}

// find splits text into literal parts and segments of blocks of entries
// before entry, each segment at least minSpan bytes. It returns nil when
// nothing repeats.
func (x *spanIndex) find(text string, entry, minSpan int) []vault.Span {
	starts := lineStarts(text)
	var parts []vault.Span
	covered := 0
	for i := 0; i+1 < len(starts); {
		a, b := starts[i], starts[i+1]
		if b-a < spanAnchorChars || a < covered {
			i++
			continue
		}
		best := spanMatch{}
		for _, loc := range x.post[lineHash(text[a:b])] {
			if x.srcs[loc.src].entry >= entry {
				continue
			}
			m, ok := x.extend(text, starts, i, loc, covered)
			if ok && m.ne-m.ns >= best.ne-best.ns { // ties go to the newest block
				best = m
			}
		}
		if best.ne-best.ns < minSpan {
			i++
			continue
		}
		if best.ns > covered {
			parts = append(parts, vault.Span{Lit: []byte(text[covered:best.ns])})
		}
		parts = append(parts, vault.Span{ID: x.srcs[best.src].id, At: best.ss, N: best.ne - best.ns,
			Hint: spanHint(text[best.ns:best.ne])})
		covered = best.ne
		for i < len(starts)-1 && starts[i] < covered {
			i++
		}
	}
	if parts == nil {
		return nil
	}
	if covered < len(text) {
		parts = append(parts, vault.Span{Lit: []byte(text[covered:])})
	}
	return parts
}

// spanHint names a span for the model: its first non-blank line, clipped.
func spanHint(span string) string {
	for line := range strings.Lines(span) {
		if t := strings.TrimSpace(line); t != "" {
			return clip(vault.CleanHint(t), spanHintChars)
		}
	}
	return ""
}

// extend grows the match of text's line i with loc's line as far as both
// agree, not before covered, and trims it to whole UTF-8 characters.
func (x *spanIndex) extend(text string, starts []int, i int, loc spanLoc, covered int) (spanMatch, bool) {
	src := &x.srcs[loc.src]
	j := int(loc.line)
	if text[starts[i]:starts[i+1]] != src.data[src.starts[j]:src.starts[j+1]] {
		return spanMatch{}, false
	}
	i0, j0 := i, j
	for i0 > 0 && j0 > 0 && starts[i0-1] >= covered &&
		text[starts[i0-1]:starts[i0]] == src.data[src.starts[j0-1]:src.starts[j0]] {
		i0, j0 = i0-1, j0-1
	}
	i1, j1 := i+1, j+1
	for i1+1 < len(starts) && j1+1 < len(src.starts) &&
		text[starts[i1]:starts[i1+1]] == src.data[src.starts[j1]:src.starts[j1+1]] {
		i1, j1 = i1+1, j1+1
	}
	ns, ne, ss, se := starts[i0], starts[i1], src.starts[j0], src.starts[j1]
	for ns > covered && ss > 0 && text[ns-1] == src.data[ss-1] {
		ns, ss = ns-1, ss-1
	}
	for ne < len(text) && se < len(src.data) && text[ne] == src.data[se] {
		ne, se = ne+1, se+1
	}
	for ns < ne && !utf8.RuneStart(text[ns]) {
		ns, ss = ns+1, ss+1
	}
	for ne > ns && ne < len(text) && !utf8.RuneStart(text[ne]) {
		ne--
	}
	return spanMatch{src: int(loc.src), ns: ns, ne: ne, ss: ss}, true
}

// indexSpans makes stored entry i a source of spans for later messages.
func (s *State) indexSpans(i int) {
	e := s.entries[i]
	if !s.p.Spans || e.id == "" || e.msg.Sensitive {
		return
	}
	if s.spans == nil {
		s.spans = newSpanIndex()
	}
	s.spans.add(i, e.id, e.msg.Content)
}

// trySpans sends entry i in the segmented form when it repeats long spans
// of earlier blocks and that saves at least half a minimum span. Pinned,
// sensitive and already rewritten messages, exact repeats (left to
// <il:seen/>) and the current human turn stay as they are.
func (s *State) trySpans(i int) bool {
	e := s.entries[i]
	if !s.p.Spans || s.spans == nil || e.form != formExact || e.id == "" || e.pageIn || e.msg.Pinned || e.msg.Sensitive ||
		len(e.msg.Content) < minSpanChars || len(e.msg.Content) > spanFindBytes || s.first[e.sum] != i || e.msg.IsHumanTurn() && i == s.currentTurn() {
		return false
	}
	parts := s.spans.find(e.msg.Content, i, minSpanChars)
	if parts == nil {
		return false
	}
	text := vault.FormatSegmented(e.id, len(e.msg.Content), vault.EncodeSpans(parts))
	if len(text)+minSpanChars/2 > len(e.msg.Content) {
		return false
	}
	s.setSent(e, formSpans, text)
	return true
}

// spanRecent tries the segmented form on the messages from end on, at an
// epoch: the prompt changes before them anyway, so former human turns
// (left exact while current) and messages added before the diet was active
// cost no cache hit when rewritten now.
func (s *State) spanRecent(end int) {
	for i := end; i < len(s.entries); i++ {
		s.trySpans(i)
	}
}
