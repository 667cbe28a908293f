package vault

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/kwsdev/kws/internal/lexical"
)

// Index limits: a block's text beyond these bytes is not indexed (its head
// and tail are), and a block keeps at most maxTerms distinct terms.
const (
	indexHeadTail = 1 << 20
	maxTerms      = 4096
	fieldBoost    = 3 // tf added for a file path, topic or kind term
)

// indexedDoc is a block's id and term vector, to add to the in-memory
// index once its transaction commits.
type indexedDoc struct {
	id string
	tv lexical.Vector
}

// termVector extracts the indexed terms of a block: words and identifiers,
// file paths and their base names, the meta's files, topics, command,
// kind and agent, and a line term for every numbered line of a file it shows (line
// terms do not count in the block's length).
func termVector(data []byte, m *Meta) lexical.Vector {
	var c lexical.Counter
	text := data
	if len(text) > 2*indexHeadTail {
		text = append(append([]byte(nil), data[:indexHeadTail]...), data[len(data)-indexHeadTail:]...)
	}
	each := func(s []byte, w uint32) { lexical.Code.Each(s, func(t string) { c.Add(t, w) }) }
	each(text, 1)
	for _, f := range m.Files {
		each([]byte(f), fieldBoost)
	}
	for _, t := range m.Topics {
		each([]byte(t), fieldBoost)
	}
	if m.Command != "" {
		each([]byte(m.Command), fieldBoost)
	}
	if m.Kind != "" {
		each([]byte(m.Kind), 1)
	}
	if m.Agent != "" {
		each([]byte(m.Agent), 1)
	}
	tv := c.Vector(maxTerms)
	seen := map[string]bool{}
	eachLineTerm(text, m, func(t string) {
		if !seen[t] {
			seen[t] = true
			tv.Terms = append(tv.Terms, lexical.TermFreq{Term: t, TF: 1})
		}
	})
	return tv
}

// Terms returns the distinct index terms of text in first-seen order; the
// diet uses it to compare topics with the same tokenizer as Search.
func Terms(text string) []string { return lexical.Code.Terms(text) }

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
		// Blocks are add-only: one the index loaded already stays.
		if _, ok := v.idx.Order(d.id); !ok {
			v.idx.Add(d.id, d.tv)
		}
	}
}

// loadIndex builds the in-memory index once; later calls return its result.
func (v *Vault) loadIndex() error {
	v.idxOnce.Do(func() {
		v.idxMu.Lock()
		defer v.idxMu.Unlock()
		ix := lexical.New()
		v.idxErr = v.view(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketIndex).ForEach(func(k, raw []byte) error {
				if err := ix.AddEncoded(string(k), raw); err != nil {
					return fmt.Errorf("%w: index entry of block %s: %v", ErrCorrupt, k, err)
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
	// Damaged marks a block whose bytes no longer match its id: its Meta
	// keeps no topics, files or command, and DamagedSummary for a summary,
	// as they were made from bytes that can no longer be trusted.
	Damaged bool `json:"damaged,omitempty"`
}
