package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
)

//go:embed memory_save.md
var memorySaveDoc string

// maxMemoryChars bounds one memory: a fact in a sentence or two.
const maxMemoryChars = 500

type memorySaveTool struct{ spec }

type memorySaveArgs struct {
	Text  string `json:"text"`
	Kind  string `json:"kind"`
	Scope string `json:"scope"`
}

// memoryKinds are the kinds memory_save accepts.
var memoryKinds = []string{"note", "preference", "decision", "correction", "rename", "path"}

// newMemorySave builds memory_save. It is ReadOnly like todo: it changes
// kws's own memory, never the workspace, and the user reviews memories in
// the memory pane.
func newMemorySave() Tool {
	return memorySaveTool{spec{name: "memory_save", doc: memorySaveDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "text": {"type": "string", "description": "the fact to remember, in one self-contained sentence"},
    "kind": {"type": "string", "enum": ["note", "preference", "decision", "correction", "rename", "path"], "description": "what sort of fact (default note)"},
    "scope": {"type": "string", "enum": ["project", "global"], "description": "project (this workspace, default) or global"}
  },
  "required": ["text"],
  "additionalProperties": false
}`}}
}

// Run saves one memory through promotion and says what happened.
func (t memorySaveTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a memorySaveArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("memory_save: %v", err), nil
	}
	text := strings.Join(strings.Fields(a.Text), " ")
	switch {
	case text == "":
		return errResult(`memory_save: "text" must not be empty`), nil
	case len(text) > maxMemoryChars:
		return errResult("memory_save: \"text\" is %d characters; keep a memory under %d, one fact per call", len(text), maxMemoryChars), nil
	case diet.IsSensitive(text):
		return errResult("memory_save: the text looks like it holds a secret (a key, token or password); memory never stores secrets"), nil
	}
	if a.Kind == "" {
		a.Kind = "note"
	}
	if !slices.Contains(memoryKinds, a.Kind) {
		return errResult("memory_save: unknown kind %q; use %s", a.Kind, strings.Join(memoryKinds, ", ")), nil
	}
	scope, ok := memoryScope(a.Scope, false)
	if !ok {
		return errResult(`memory_save: "scope" must be project or global, not %q`, a.Scope), nil
	}
	if env == nil || env.Memory == nil {
		return errResult("memory_save: memory is off in this session"), nil
	}
	action, id, err := env.Memory.Save(ctx, text, a.Kind, scope)
	if err != nil {
		return Result{}, fmt.Errorf("memory_save: %w", err)
	}
	switch action {
	case "add":
		return Result{Text: fmt.Sprintf("saved as %s (%s)", id, scope)}, nil
	case "update":
		return Result{Text: fmt.Sprintf("updated %s, a similar memory, with this text (%s)", id, scope)}, nil
	case "pending":
		return Result{Text: fmt.Sprintf("queued as %s for the user's approval", id)}, nil
	case "noop":
		if id != "" {
			return Result{Text: fmt.Sprintf("already remembered as %s; nothing changed", id)}, nil
		}
		return Result{Text: "not saved: memory did not take it (too uncertain or nothing to change)"}, nil
	}
	return Result{Text: fmt.Sprintf("%s %s (%s)", action, id, scope)}, nil
}
