package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
)

// memory_search and memory_save reach kws's long-term memory through the
// MemoryStore interface; cmd/kws adapts the memory package's store to it,
// with the session's provenance and the workspace's project scope.

// MemoryStore is what memory_search and memory_save need.
type MemoryStore interface {
	// Search returns the k memories most relevant to query in scope
	// ("project", "global", or "" for both), best first: by its words and
	// its meaning (memory.Store.Search).
	Search(ctx context.Context, query, scope string, k int) ([]MemoryHit, error)
	// Save promotes text as a memory of kind in scope ("project" or
	// "global") and returns what happened (add, update, noop or pending)
	// and the id of the memory or pending candidate.
	Save(ctx context.Context, text, kind, scope string) (action, id string, err error)
}

// MemoryHit is one memory found by MemoryStore.Search.
type MemoryHit struct {
	ID     string
	Text   string
	Kind   string
	Scope  string // "project" or "global"
	Source string // user, tool, sidecar or manual
	Score  float64
}

//go:embed memory_search.md
var memorySearchDoc string

const (
	defaultMemoryK = 5
	maxMemoryK     = 20
)

type memorySearchTool struct{ spec }

type memorySearchArgs struct {
	Query string `json:"query"`
	Scope string `json:"scope"`
	K     int    `json:"k"`
}

func newMemorySearch() Tool {
	return memorySearchTool{spec{name: "memory_search", doc: memorySearchDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "what you want to recall, in a few words"},
    "scope": {"type": "string", "enum": ["project", "global", "all"], "description": "project, global or all (default all)"},
    "k": {"type": "integer", "minimum": 1, "maximum": 20, "description": "how many memories to return (default 5)"}
  },
  "required": ["query"],
  "additionalProperties": false
}`}}
}

// Run returns the memories most similar to the query, one line each.
func (t memorySearchTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a memorySearchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("memory_search: %v", err), nil
	}
	if strings.TrimSpace(a.Query) == "" {
		return errResult(`memory_search: "query" must not be empty`), nil
	}
	k, err := intArg("k", a.K, defaultMemoryK, 1, maxMemoryK)
	if err != nil {
		return errResult("memory_search: %v", err), nil
	}
	scope, ok := memoryScope(a.Scope, true)
	if !ok {
		return errResult(`memory_search: "scope" must be project, global or all, not %q`, a.Scope), nil
	}
	if env == nil || env.Memory == nil {
		return errResult("memory_search: memory is off in this session"), nil
	}
	hits, err := env.Memory.Search(ctx, a.Query, scope, k)
	if err != nil {
		return Result{}, fmt.Errorf("memory_search %q: %w", a.Query, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<memory_results query=%q n=%d note=\"hints, not evidence\">\n", diet.EscapeMarkup(a.Query), len(hits))
	for _, h := range hits {
		fmt.Fprintf(&b, "- [%s] %s (%s, %s, %s, score %.2f)\n", h.Kind, oneLineMarkup(h.Text), h.ID, h.Source, h.Scope, h.Score)
	}
	b.WriteString("</memory_results>")
	return Result{Text: b.String()}, nil
}

// memoryScope checks a scope argument: "" means all for a search and
// project for a save; all is "" to the store.
func memoryScope(s string, search bool) (string, bool) {
	switch s {
	case "":
		if search {
			return "", true
		}
		return "project", true
	case "all":
		return "", search
	case "project", "global":
		return s, true
	}
	return "", false
}

// oneLineMarkup collapses whitespace and keeps text from reading as a tag.
func oneLineMarkup(s string) string {
	return diet.EscapeMarkup(strings.Join(strings.Fields(s), " "))
}
