package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
)

// constructors lists every tool in the order All returns them.
var constructors = []func() Tool{
	newReadFile,
	newListFiles,
	newGrep,
	newContextForTask,
	newWriteFile,
	newEditFile,
	newShell,
	newWebFetch,
	newCtxGet,
	newCtxSearch,
	newMemorySearch,
	newMemorySave,
	newTodo,
	newAgentSend,
	newStats,
	newToolExpand,
}

// coreNames are the tools offered on a direct-answer turn.
var coreNames = []string{"read_file", "list_files", "grep", "ctx_get", "ctx_search", "todo", "tool_expand", "skill"}

// All returns every tool, in a stable order.
func All() []Tool {
	out := make([]Tool, len(constructors))
	for i, c := range constructors {
		out[i] = c()
	}
	return out
}

// Core returns the names of the core tools offered on a direct-answer
// turn: read_file, list_files, grep, ctx_get, ctx_search, todo,
// tool_expand and, when the agent has skills, skill.
func Core() []string {
	return append([]string(nil), coreNames...)
}

// ByName returns the tool called name.
func ByName(name string) (Tool, bool) {
	for _, t := range All() {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// names returns the names of all tools, in All's order.
func names() []string {
	all := All()
	out := make([]string, len(all))
	for i, t := range all {
		out[i] = t.Name()
	}
	return out
}

//go:embed tool_expand.md
var toolExpandDoc string

type toolExpandTool struct{ spec }

type toolExpandArgs struct {
	Names  []string `json:"names"`
	Reason string   `json:"reason"`
}

func newToolExpand() Tool {
	return toolExpandTool{spec{name: "tool_expand", doc: toolExpandDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "tools to add, e.g. [\"edit_file\", \"shell\"]"},
    "reason": {"type": "string", "description": "why you need them, in a few words"}
  },
  "required": ["names"],
  "additionalProperties": false
}`}}
}

// Run asks the session to offer more tools from the next call on.
func (t toolExpandTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a toolExpandArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("tool_expand: %v", err), nil
	}
	valid := names()
	if len(a.Names) == 0 {
		return errResult(`tool_expand: "names" must list at least one tool; valid names: %s`, strings.Join(valid, ", ")), nil
	}
	var unknown []string
	for _, n := range a.Names {
		if _, ok := ByName(n); !ok {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return errResult("tool_expand: unknown tool(s) %s; valid names: %s",
			strings.Join(unknown, ", "), strings.Join(valid, ", ")), nil
	}
	if env == nil || env.Expand == nil {
		return errResult("tool_expand: this session cannot offer more tools"), nil
	}
	offered := env.Expand(a.Names)
	if len(offered) == 0 {
		return errResult("tool_expand: none of %s can be offered in this session", strings.Join(a.Names, ", ")), nil
	}
	return Result{Text: "offered from the next call on: " + strings.Join(offered, ", ")}, nil
}
