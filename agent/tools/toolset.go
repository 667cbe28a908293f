package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
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
	newJobs,
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

// Run asks the session to offer more tools from the next call on. A name
// may be a built-in tool, an external tool (env.External) or a whole
// external group.
func (t toolExpandTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a toolExpandArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("tool_expand: %v", err), nil
	}
	var groups []Group
	if env != nil && env.External != nil {
		groups = env.External()
	}
	valid := validExpandNames(groups)
	if len(a.Names) == 0 {
		return errResult(`tool_expand: "names" must list at least one tool; valid names: %s`, valid), nil
	}
	var unknown, want []string
	for _, n := range a.Names {
		if _, ok := ByName(n); ok {
			want = append(want, n)
			continue
		}
		if ext, ok := expandExternal(groups, n); ok {
			want = append(want, ext...)
			continue
		}
		unknown = append(unknown, n)
	}
	if len(unknown) > 0 {
		return errResult("tool_expand: unknown tool(s) %s; valid names: %s", strings.Join(unknown, ", "), valid), nil
	}
	if env == nil || env.Expand == nil {
		return errResult("tool_expand: this session cannot offer more tools"), nil
	}
	offered := env.Expand(want)
	if len(offered) == 0 {
		return errResult("tool_expand: none of %s can be offered in this session", strings.Join(a.Names, ", ")), nil
	}
	return Result{Text: "offered from the next call on: " + strings.Join(offered, ", ")}, nil
}

// expandExternal returns the external tool called name, or every tool of
// the group called name.
func expandExternal(groups []Group, name string) ([]string, bool) {
	for _, g := range groups {
		if g.Name == name {
			out := make([]string, len(g.Tools))
			for i, t := range g.Tools {
				out[i] = t.Name()
			}
			return out, true
		}
		for _, t := range g.Tools {
			if t.Name() == name {
				return []string{name}, true
			}
		}
	}
	return nil, false
}

// validExpandNames lists the built-in tools, then each external group
// with its tools.
func validExpandNames(groups []Group) string {
	parts := []string{strings.Join(names(), ", ")}
	for _, g := range groups {
		tn := make([]string, len(g.Tools))
		for i, t := range g.Tools {
			tn[i] = t.Name()
		}
		parts = append(parts, fmt.Sprintf("%s (all of %s, or one of: %s)", g.Name, g.Label, strings.Join(tn, ", ")))
	}
	return strings.Join(parts, "; ")
}
