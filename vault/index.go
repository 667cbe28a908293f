package vault

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Index limits: a block's text beyond these bytes is not indexed (its head
// and tail are), and a block keeps at most maxTerms distinct terms.
const (
	indexHeadTail = 1 << 20
	maxTerms      = 4096
	fieldBoost    = 3 // tf added for a file path, topic or kind term
	bm25K1        = 1.2
	bm25B         = 0.75
)

type termFreq struct {
	term string
	tf   uint32
}

// termVec is the persisted index entry of one block.
type termVec struct {
	docLen uint32
	terms  []termFreq
}

type indexedDoc struct {
	id string
	tv termVec
}

// termVector extracts the indexed terms of a block: words and identifiers,
// file paths and their base names, the meta's files, topics, command,
// kind and agent, and a line term for every numbered line of a file it shows (line
// terms do not count in the block's length).
func termVector(data []byte, m *Meta) termVec {
	counts := map[string]uint32{}
	total := uint32(0)
	add := func(t string, w uint32) {
		counts[t] += w
		total += w
	}
	text := data
	if len(text) > 2*indexHeadTail {
		text = append(append([]byte(nil), data[:indexHeadTail]...), data[len(data)-indexHeadTail:]...)
	}
	eachTerm(text, func(t string) { add(t, 1) })
	for _, f := range m.Files {
		eachTerm([]byte(f), func(t string) { add(t, fieldBoost) })
	}
	for _, t := range m.Topics {
		eachTerm([]byte(t), func(t string) { add(t, fieldBoost) })
	}
	if m.Command != "" {
		eachTerm([]byte(m.Command), func(t string) { add(t, fieldBoost) })
	}
	if m.Kind != "" {
		eachTerm([]byte(m.Kind), func(t string) { add(t, 1) })
	}
	if m.Agent != "" {
		eachTerm([]byte(m.Agent), func(t string) { add(t, 1) })
	}
	tv := termVec{docLen: total}
	for t, n := range counts {
		tv.terms = append(tv.terms, termFreq{t, n})
	}
	sort.Slice(tv.terms, func(i, j int) bool {
		if tv.terms[i].tf != tv.terms[j].tf {
			return tv.terms[i].tf > tv.terms[j].tf
		}
		return tv.terms[i].term < tv.terms[j].term
	})
	if len(tv.terms) > maxTerms {
		tv.terms = tv.terms[:maxTerms]
	}
	seen := map[string]bool{}
	eachLineTerm(text, m, func(t string) {
		if !seen[t] {
			seen[t] = true
			tv.terms = append(tv.terms, termFreq{t, 1})
		}
	})
	return tv
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isPathByte(c byte) bool { return isWordByte(c) || c == '/' || c == '.' || c == '-' }

// eachTerm calls fn with every lowercase word (2 to 64 bytes) of text and
// its subwords, and for every path-like token (containing '/' or a dot
// extension) the whole path and its base name.
func eachTerm(text []byte, fn func(string)) {
	for i := 0; i < len(text); {
		if !isPathByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isPathByte(text[j]) {
			j++
		}
		tok := strings.Trim(string(text[i:j]), "./-")
		i = j
		if strings.ContainsAny(tok, "/.") && len(tok) <= 256 {
			low := strings.ToLower(tok)
			fn(low)
			if k := strings.LastIndexByte(low, '/'); k >= 0 && k+1 < len(low) {
				fn(low[k+1:])
			}
		}
		for s := 0; s < len(tok); {
			if !isWordByte(tok[s]) {
				s++
				continue
			}
			e := s
			for e < len(tok) && isWordByte(tok[e]) {
				e++
			}
			if e-s >= 2 && e-s <= 64 {
				fn(strings.ToLower(tok[s:e]))
				subwords(tok[s:e], fn)
			}
			s = e
		}
	}
}

// subwords calls fn with the parts of an identifier split at underscores
// and lower-to-upper case changes (AssertionError: assertion, error), when
// there is more than one part.
func subwords(w string, fn func(string)) {
	var parts []string
	start := 0
	for i := 1; i <= len(w); i++ {
		if i == len(w) || w[i] == '_' || (w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z') {
			if p := strings.Trim(w[start:i], "_"); len(p) >= 2 {
				parts = append(parts, strings.ToLower(p))
			}
			start = i
		}
	}
	if len(parts) > 1 {
		for _, p := range parts {
			fn(p)
		}
	}
}

// Terms returns the distinct index terms of text in first-seen order; the
// diet uses it to compare topics with the same tokenizer as Search.
func Terms(text string) []string {
	seen := map[string]bool{}
	var out []string
	eachTerm([]byte(text), func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

func (tv termVec) encode() []byte {
	buf := binary.AppendUvarint(nil, uint64(tv.docLen))
	buf = binary.AppendUvarint(buf, uint64(len(tv.terms)))
	for _, t := range tv.terms {
		buf = binary.AppendUvarint(buf, uint64(len(t.term)))
		buf = append(buf, t.term...)
		buf = binary.AppendUvarint(buf, uint64(t.tf))
	}
	return buf
}

type posting struct{ doc, tf uint32 }

// memIndex is the in-memory inverted index, built from the persisted term
// vectors on the first Search and kept current by every Put after that.
type memIndex struct {
	ids      []string
	docLen   []uint32
	byID     map[string]uint32
	postings map[string][]posting
	totalLen uint64
}

func (ix *memIndex) add(d indexedDoc) {
	if _, ok := ix.byID[d.id]; ok {
		return
	}
	doc := uint32(len(ix.ids))
	ix.ids = append(ix.ids, d.id)
	ix.docLen = append(ix.docLen, d.tv.docLen)
	ix.byID[d.id] = doc
	ix.totalLen += uint64(d.tv.docLen)
	for _, t := range d.tv.terms {
		ix.postings[t.term] = append(ix.postings[t.term], posting{doc, t.tf})
	}
}

// addRaw adds a persisted term vector without materializing it: a term
// string is allocated only the first time the index sees it.
func (ix *memIndex) addRaw(id string, raw []byte) error {
	if _, ok := ix.byID[id]; ok {
		return nil
	}
	b := raw
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
	if !ok1 || !ok2 || cnt > uint64(len(b)) {
		return fmt.Errorf("%w: index entry header", ErrCorrupt)
	}
	doc := uint32(len(ix.ids))
	for i := uint64(0); i < cnt; i++ {
		l, ok := next()
		if !ok || l > uint64(len(b)) {
			return fmt.Errorf("%w: index entry term", ErrCorrupt)
		}
		term := b[:l]
		b = b[l:]
		tf, ok := next()
		if !ok {
			return fmt.Errorf("%w: index entry tf", ErrCorrupt)
		}
		if ps, ok := ix.postings[string(term)]; ok {
			ix.postings[string(term)] = append(ps, posting{doc, uint32(tf)})
		} else {
			ix.postings[string(term)] = []posting{{doc, uint32(tf)}}
		}
	}
	ix.ids = append(ix.ids, id)
	ix.docLen = append(ix.docLen, uint32(dl))
	ix.byID[id] = doc
	ix.totalLen += dl
	return nil
}

func (v *Vault) indexAdd(docs []indexedDoc) {
	if len(docs) == 0 {
		return
	}
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	if v.idx == nil {
		return
	}
	for _, d := range docs {
		v.idx.add(d)
	}
}

// loadIndex builds the in-memory index once; later calls return its result.
func (v *Vault) loadIndex() error {
	v.idxOnce.Do(func() {
		v.idxMu.Lock()
		defer v.idxMu.Unlock()
		ix := &memIndex{byID: map[string]uint32{}, postings: map[string][]posting{}}
		v.idxErr = v.view(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketIndex).ForEach(func(k, raw []byte) error {
				if err := ix.addRaw(string(k), raw); err != nil {
					return fmt.Errorf("block %s: %w", k, err)
				}
				return nil
			})
		})
		if v.idxErr == nil {
			v.idx = ix
		}
	})
	return v.idxErr
}

// Hit is one Search result: a reference and its metadata, never the bytes.
type Hit struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	Meta  Meta    `json:"meta"`
}

type scored struct {
	doc   uint32
	score float64
}

// better orders results: higher score first, then the newer block.
func (a scored) better(b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc > b.doc
}

// rank scores every block that holds a query term with BM25 and keeps the
// best k in a small sorted slice.
func (ix *memIndex) rank(qterms []string, k int) []scored {
	n := len(ix.ids)
	if n == 0 {
		return nil
	}
	avg := float64(ix.totalLen) / float64(n)
	scores := make([]float64, n)
	var touched []uint32
	for _, t := range qterms {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		for _, p := range ps {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			tf := float64(p.tf)
			dl := float64(ix.docLen[p.doc])
			scores[p.doc] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avg))
		}
	}
	top := make([]scored, 0, k+1)
	for _, d := range touched {
		c := scored{d, scores[d]}
		if len(top) == k && !c.better(top[k-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return c.better(top[i]) })
		top = append(top, scored{})
		copy(top[i+1:], top[i:])
		top[i] = c
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
