package diet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/vault"
)

// Searcher is what answering a search fault needs of the vault.
type Searcher interface {
	Search(query string, k int) ([]vault.Hit, error)
}

// searchResults is how many refs a search fault returns.
const searchResults = 8

// Answer resolves one page fault. A get returns the exact block in a
// <ctx_exact> element; a search returns refs and summaries only, never
// exact text. Failures are answered in text the model can act on.
func Answer(store Store, search Searcher, f Fault) string {
	switch f.Op {
	case "get":
		data, err := store.Get(f.ID)
		if errors.Is(err, vault.ErrCorrupt) {
			return fmt.Sprintf("<ctx_error id=%q damaged=\"true\">%s</ctx_error>", f.ID, Damaged(f.ID))
		}
		if err != nil {
			return fmt.Sprintf("<ctx_error id=%q>%s</ctx_error>", f.ID, EscapeMarkup(err.Error()))
		}
		return FormatExact(f.ID, data)
	case "search":
		hits, err := search.Search(f.Query, searchResults)
		if err != nil {
			return fmt.Sprintf("<ctx_error query=%q>%s</ctx_error>", f.Query, EscapeMarkup(err.Error()))
		}
		return FormatHits(f.Query, hits)
	}
	return fmt.Sprintf("<ctx_error>unknown page-fault operation %q</ctx_error>", f.Op)
}

// Damaged is what the model reads for a block the vault reports as
// damaged: its bytes are never served, and the note says what to do.
func Damaged(id string) string {
	return "block " + id + " is damaged in the vault: its stored bytes no longer match its id, so they are not served. " +
		"Work from its summary, or produce the content again (re-run the command, re-read the file)."
}

// NoHits is what an empty search result says.
const NoHits = "no block in the vault matches; try other words: the command that printed it, a file name, an error line"

// FormatHits renders search results: one ref with its metadata and
// summary per block, never the blocks' text; an empty result says so.
func FormatHits(query string, hits []vault.Hit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<ctx_results query=%q n=%d>\n", query, len(hits))
	if len(hits) == 0 {
		b.WriteString(NoHits + "\n")
	}
	for _, h := range hits {
		m := h.Meta
		r := vault.Ref{Tag: vault.TagCtx, ID: h.ID, Chars: m.Chars, Kind: m.Kind, Tokens: m.Tokens,
			Confidence: m.Confidence, Priority: m.Priority, Sensitive: m.Sensitive,
			Topics: m.Topics, Summary: m.Summary}
		b.WriteString(r.String() + "\n")
	}
	b.WriteString("</ctx_results>")
	return b.String()
}

// EscapeMarkup keeps text (an error message) from reading as a tag.
func EscapeMarkup(s string) string {
	return strings.NewReplacer("<", "‹", ">", "›").Replace(s)
}
