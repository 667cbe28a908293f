package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/vault"
)

// ctx_get and ctx_search read the context vault: the exact bytes of one
// block, or references to the blocks matching a query.

//go:embed ctx_get.md
var ctxGetDoc string

//go:embed ctx_search.md
var ctxSearchDoc string

const (
	defaultSearchK = 8
	maxSearchK     = 50
)

type ctxGetTool struct{ spec }

type ctxGetArgs struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

func newCtxGet() Tool {
	return ctxGetTool{spec{name: "ctx_get", doc: ctxGetDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "block id from a <ctx id=\"…\"> reference, e.g. ctx:3f9a1c2b7d4e"},
    "reason": {"type": "string", "description": "what you need from the block, in a few words"}
  },
  "required": ["id"],
  "additionalProperties": false
}`}}
}

// Run returns the exact bytes of one vault block.
func (t ctxGetTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	id, data, refused, err := CtxGetBytes(env, raw)
	if err != nil || refused.IsError {
		return refused, err
	}
	return Result{Text: diet.FormatExact(id, data)}, nil
}

// CtxGetBytes is ctx_get without the formatting, for callers that serve
// the bytes themselves (kws's MCP server): it checks the arguments, applies
// ctx_get's rules (a sensitive block is refused) and returns the block's
// id and exact bytes. What ctx_get would answer as an error comes back as
// refused, IsError set; err is an infrastructure failure.
func CtxGetBytes(env *Env, raw json.RawMessage) (id string, data []byte, refused Result, err error) {
	var a ctxGetArgs
	if err := decodeArgs(raw, &a); err != nil {
		return "", nil, errResult("ctx_get: %v", err), nil
	}
	if env == nil || env.Vault == nil {
		return "", nil, errResult("ctx_get: the context vault is not available in this session"), nil
	}
	id, err = vault.NormalizeID(a.ID)
	if err != nil {
		return "", nil, errResult("ctx_get: %q is not a block id (want ctx: followed by 8 to 64 hex digits)", a.ID), nil
	}
	if refusal := sensitiveRefusal(env, id); refusal != "" {
		return "", nil, errResult("ctx_get: %s", refusal), nil
	}
	data, err = env.Vault.Get(id)
	switch {
	case errors.Is(err, vault.ErrNotFound):
		return "", nil, errResult("ctx_get: no block %s in the vault; ctx_search can find blocks by content", id), nil
	case errors.Is(err, vault.ErrBadID):
		return "", nil, errResult("ctx_get: %v", err), nil
	case errors.Is(err, vault.ErrCorrupt):
		return "", nil, errResult("ctx_get: %s", diet.Damaged(id)), nil
	case err != nil:
		return "", nil, Result{}, fmt.Errorf("ctx_get %s: %w", id, err)
	}
	return id, data, Result{}, nil
}

type ctxSearchTool struct{ spec }

type ctxSearchArgs struct {
	Query  string `json:"query"`
	K      int    `json:"k"`
	Reason string `json:"reason"`
}

func newCtxSearch() Tool {
	return ctxSearchTool{spec{name: "ctx_search", doc: ctxSearchDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "words to look for: error text, file names, identifiers"},
    "k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "how many blocks to return (default 8)"},
    "reason": {"type": "string", "description": "what you are looking for, in a few words"}
  },
  "required": ["query"],
  "additionalProperties": false
}`}}
}

// Run returns one reference line per matching vault block, never the
// blocks' text.
func (t ctxSearchTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a ctxSearchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("ctx_search: %v", err), nil
	}
	if strings.TrimSpace(a.Query) == "" {
		return errResult(`ctx_search: "query" must not be empty`), nil
	}
	k, err := intArg("k", a.K, defaultSearchK, 1, maxSearchK)
	if err != nil {
		return errResult("ctx_search: %v", err), nil
	}
	if env == nil || env.Vault == nil {
		return errResult("ctx_search: the context vault is not available in this session"), nil
	}
	hits, err := env.Vault.Search(a.Query, k)
	if err != nil {
		return Result{}, fmt.Errorf("ctx_search %q: %w", a.Query, err)
	}
	kept := hits[:0]
	for _, h := range hits {
		if h.Meta.VisibleTo(env.Workspace) {
			kept = append(kept, h)
		}
	}
	return Result{Text: diet.FormatHits(a.Query, kept)}, nil
}

// sensitiveRefusal says why the block id is not served, or returns "". A
// sensitive block's bytes need the user's approval, which only the agent
// loop can ask for (it answers ctx_get calls itself, as page faults, and
// serves a sensitive block only to a workspace that stored it); run
// directly, the tool never serves one.
func sensitiveRefusal(env *Env, id string) string {
	m, err := env.Vault.Meta(id)
	switch {
	case err != nil || !m.Sensitive:
		return "" // Get reports a missing block itself.
	case !m.StoredIn(env.Workspace):
		return fmt.Sprintf("block %s is marked sensitive and was stored by another workspace; it is not served here", m.ID)
	}
	return fmt.Sprintf("block %s is marked sensitive; it is served only after the user approves, which this caller cannot ask for", m.ID)
}
