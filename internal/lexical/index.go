package lexical

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
)

// BM25 parameters (Okapi defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Compaction: removed documents stay in the postings as tombstones, which
// ranking skips, until they are more than compactShare of the slots and
// at least compactMin, when the postings are rebuilt without them.
const (
	compactMin   = 256
	compactShare = 0.25
)

// ErrCorrupt is returned for a term vector that does not decode.
var ErrCorrupt = errors.New("lexical: damaged term vector")

// TermFreq is one term of a document and how often it occurs (weighted).
type TermFreq struct {
	Term string
	TF   uint32
}

// Vector is a document as the index sees it: its length in terms and its
// terms' frequencies.
type Vector struct {
	Len   uint32
	Terms []TermFreq
}

// Counter counts the terms of a document.
type Counter struct {
	counts map[string]uint32
	total  uint32
}

// Add counts term with weight w: w occurrences toward the term and the
// document's length.
func (c *Counter) Add(term string, w uint32) {
	if c.counts == nil {
		c.counts = map[string]uint32{}
	}
	c.counts[term] += w
	c.total += w
}

// Vector returns the counted terms, most frequent first (ties by term),
// at most max of them (max ≤ 0: all).
func (c *Counter) Vector(max int) Vector {
	v := Vector{Len: c.total, Terms: make([]TermFreq, 0, len(c.counts))}
	for t, n := range c.counts {
		v.Terms = append(v.Terms, TermFreq{t, n})
	}
	sort.Slice(v.Terms, func(i, j int) bool {
		if v.Terms[i].TF != v.Terms[j].TF {
			return v.Terms[i].TF > v.Terms[j].TF
		}
		return v.Terms[i].Term < v.Terms[j].Term
	})
	if max > 0 && len(v.Terms) > max {
		v.Terms = v.Terms[:max]
	}
	return v
}

// Analyze counts every term a finds in text, each occurrence once.
func Analyze(a Analyzer, text string) Vector {
	var c Counter
	a.Each([]byte(text), func(t string) { c.Add(t, 1) })
	return c.Vector(0)
}

// Encode returns v's persisted form: uvarints of the length and the term
// count, then each term's byte length, bytes and frequency.
func (v Vector) Encode() []byte {
	buf := binary.AppendUvarint(nil, uint64(v.Len))
	buf = binary.AppendUvarint(buf, uint64(len(v.Terms)))
	for _, t := range v.Terms {
		buf = binary.AppendUvarint(buf, uint64(len(t.Term)))
		buf = append(buf, t.Term...)
		buf = binary.AppendUvarint(buf, uint64(t.TF))
	}
	return buf
}

type posting struct{ slot, tf uint32 }

// Index is an in-memory BM25 inverted index of documents named by string
// ids. It is not safe for concurrent use: callers hold a lock around
// changes and, for reads, a read lock.
type Index struct {
	ids      []string // by slot; "" for a removed document
	docLen   []uint32
	order    []uint64 // by slot: when the document was added
	bySlot   map[string]uint32
	postings map[string][]posting
	totalLen uint64
	live     int
	dead     int
	next     uint64
}

// New returns an empty index.
func New() *Index {
	return &Index{bySlot: map[string]uint32{}, postings: map[string][]posting{}}
}

// Len returns the number of documents.
func (ix *Index) Len() int { return ix.live }

// Add indexes document id with vector v, replacing a document of the same
// id.
func (ix *Index) Add(id string, v Vector) {
	ix.Remove(id)
	s := ix.newSlot(id, v.Len)
	for _, t := range v.Terms {
		ix.postings[t.Term] = append(ix.postings[t.Term], posting{s, t.TF})
	}
}

func (ix *Index) newSlot(id string, n uint32) uint32 {
	s := uint32(len(ix.ids))
	ix.ids = append(ix.ids, id)
	ix.docLen = append(ix.docLen, n)
	ix.order = append(ix.order, ix.next)
	ix.next++
	ix.bySlot[id] = s
	ix.totalLen += uint64(n)
	ix.live++
	return s
}

// AddEncoded indexes document id from its encoded vector (Vector.Encode)
// without materializing it: a term string is allocated only the first
// time the index sees the term. A document of the same id is replaced; a
// damaged vector changes nothing.
func (ix *Index) AddEncoded(id string, raw []byte) error {
	dl, err := walkEncoded(raw, nil)
	if err != nil {
		return err
	}
	ix.Remove(id)
	s := ix.newSlot(id, dl)
	walkEncoded(raw, func(term []byte, tf uint32) {
		if ps, ok := ix.postings[string(term)]; ok {
			ix.postings[string(term)] = append(ps, posting{s, tf})
		} else {
			ix.postings[string(term)] = []posting{{s, tf}}
		}
	})
	return nil
}

// walkEncoded decodes an encoded vector, calling fn (when not nil) with
// each term and frequency, and returns its length.
func walkEncoded(b []byte, fn func(term []byte, tf uint32)) (uint32, error) {
	next := func() (uint64, bool) {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return x, true
	}
	dl, ok1 := next()
	cnt, ok2 := next()
	if !ok1 || !ok2 || cnt > uint64(len(b)) || dl > math.MaxUint32 {
		return 0, fmt.Errorf("%w: header", ErrCorrupt)
	}
	for i := uint64(0); i < cnt; i++ {
		l, ok := next()
		if !ok || l > uint64(len(b)) {
			return 0, fmt.Errorf("%w: term", ErrCorrupt)
		}
		term := b[:l]
		b = b[l:]
		tf, ok := next()
		if !ok || tf > math.MaxUint32 {
			return 0, fmt.Errorf("%w: frequency", ErrCorrupt)
		}
		if fn != nil {
			fn(term, uint32(tf))
		}
	}
	return uint32(dl), nil
}

// Remove drops document id; it reports whether the index held it.
func (ix *Index) Remove(id string) bool {
	s, ok := ix.bySlot[id]
	if !ok {
		return false
	}
	delete(ix.bySlot, id)
	ix.ids[s] = ""
	ix.totalLen -= uint64(ix.docLen[s])
	ix.live--
	ix.dead++
	if ix.dead >= compactMin && float64(ix.dead) > compactShare*float64(len(ix.ids)) {
		ix.compact()
	}
	return true
}

// compact rebuilds the slots and postings without removed documents,
// keeping the documents' order.
func (ix *Index) compact() {
	const gone = math.MaxUint32
	remap := make([]uint32, len(ix.ids))
	n := uint32(0)
	for s, id := range ix.ids {
		if id == "" {
			remap[s] = gone
			continue
		}
		remap[s] = n
		ix.ids[n], ix.docLen[n], ix.order[n] = id, ix.docLen[s], ix.order[s]
		ix.bySlot[id] = n
		n++
	}
	ix.ids, ix.docLen, ix.order = ix.ids[:n], ix.docLen[:n], ix.order[:n]
	for t, ps := range ix.postings {
		kept := ps[:0]
		for _, p := range ps {
			if to := remap[p.slot]; to != gone {
				kept = append(kept, posting{to, p.tf})
			}
		}
		if len(kept) == 0 {
			delete(ix.postings, t)
		} else {
			ix.postings[t] = kept
		}
	}
	ix.dead = 0
}

// Order returns when document id was added (a number that grows with
// every Add), and whether the index holds it.
func (ix *Index) Order(id string) (uint64, bool) {
	s, ok := ix.bySlot[id]
	if !ok {
		return 0, false
	}
	return ix.order[s], true
}

// DocFreq returns how many documents hold term.
func (ix *Index) DocFreq(term string) int {
	ps := ix.postings[term]
	if ix.dead == 0 {
		return len(ps)
	}
	n := 0
	for _, p := range ps {
		if ix.ids[p.slot] != "" {
			n++
		}
	}
	return n
}

// Holding returns the ids of the documents that hold term, oldest first.
func (ix *Index) Holding(term string) []string {
	var out []string
	for _, p := range ix.postings[term] {
		if id := ix.ids[p.slot]; id != "" {
			out = append(out, id)
		}
	}
	return out
}

// Scored is one ranked document.
type Scored struct {
	ID    string
	Score float64 // BM25
	Order uint64  // see Index.Order
}

// better orders results: higher score first, then the newer document.
func (a Scored) better(b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Order > b.Order
}

// Rank scores every document that holds a query term with BM25 (k1 1.2,
// b 0.75; a term repeated in the query counts once per repetition) and
// returns the best k, best first (ties: newer first). keep, when not nil,
// limits the ranking to the documents it accepts.
func (ix *Index) Rank(terms []string, k int, keep func(id string) bool) []Scored {
	if ix.live == 0 || k <= 0 {
		return nil
	}
	n := float64(ix.live)
	avg := float64(ix.totalLen) / n
	if avg == 0 {
		avg = 1
	}
	scores := make([]float64, len(ix.ids))
	var touched []uint32
	for _, t := range terms {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(ix.DocFreq(t))
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			if ix.ids[p.slot] == "" {
				continue
			}
			if scores[p.slot] == 0 {
				touched = append(touched, p.slot)
			}
			tf := float64(p.tf)
			dl := float64(ix.docLen[p.slot])
			scores[p.slot] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avg))
		}
	}
	top := make([]Scored, 0, k+1)
	for _, s := range touched {
		c := Scored{ix.ids[s], scores[s], ix.order[s]}
		if len(top) == k && !c.better(top[k-1]) {
			continue
		}
		if keep != nil && !keep(c.ID) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return c.better(top[i]) })
		top = append(top, Scored{})
		copy(top[i+1:], top[i:])
		top[i] = c
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
