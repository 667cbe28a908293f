// Package tools holds the agent's tools. Each tool is a Go file plus an
// embedded Markdown description. A model mistake (bad arguments, a missing
// file, a path outside the workspace) is a Result with IsError set, which
// the model reads; a Go error from Run is an infrastructure failure.
package tools

import (
	"context"
	"encoding/json"

	"github.com/kwsdev/kws/sandbox"
	"github.com/kwsdev/kws/vault"
)

// Tool is one tool the model can call.
type Tool interface {
	// Name is the function name the model calls.
	Name() string
	// Description is the embedded Markdown description sent to the model.
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// Access says what the tool does to the world, for permissions.
	Access() Access
	// Run executes one call with the raw JSON arguments.
	Run(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
}

// Access classifies a tool for the permission policy.
type Access int

const (
	// ReadOnly tools only read the workspace or the vault.
	ReadOnly Access = iota
	// Writes change files in the workspace.
	Writes
	// Executes runs commands.
	Executes
	// Network reaches other machines (web_fetch); it asks like Executes,
	// but no shell prefix allows it.
	Network
)

// Result is what a tool call returns to the model.
type Result struct {
	// Text is the tool output the model sees.
	Text string
	// IsError marks a model mistake the model can correct.
	IsError bool
	// Preview is shown to the user before approval (a unified diff for
	// edits and writes, the command for shell); empty when not relevant.
	Preview string
	// Changed lists workspace-relative files the call wrote.
	Changed []string
	// Response holds what a PostToolUse hook reads in tool_response
	// besides the text, in Claude Code's field names (the shell's stdout,
	// stderr and exit code); nil when the text is all.
	Response map[string]any
}

// Group is a set of tools from one source outside kws, such as the tools
// of one MCP server.
type Group struct {
	// Name names the whole group to tool_expand ("mcp__github").
	Name string
	// Label says where the tools come from ("MCP server github").
	Label string
	// Tools are the group's tools.
	Tools []Tool
}

// Vault is what the ctx_get and ctx_search tools need.
type Vault interface {
	Get(id string) ([]byte, error)
	Search(query string, k int) ([]vault.Hit, error)
	Meta(id string) (vault.Meta, error)
}

// Env is the world a tool runs in.
type Env struct {
	// Workspace is the absolute, symlink-resolved workspace root. File
	// tools never read or write outside it.
	Workspace string
	// Vault serves ctx_get and ctx_search; nil disables them.
	Vault Vault
	// Memory serves memory_search and memory_save; nil turns memory off.
	Memory MemoryStore
	// Todo is the session's todo list, used when Board is nil.
	Todo *TodoList
	// Board is the swarm's shared task board as this agent sees it; when
	// set, the todo tool works on it instead of Todo.
	Board Board
	// Mailbox carries agent_send's messages; nil means there is no swarm.
	Mailbox Mailbox
	// External, when set, returns the tools from outside kws (each MCP
	// server's) as they are now, by group; tool_expand offers them by
	// name, or a whole group by its name.
	External func() []Group
	// Expand is called by tool_expand with the tool names the model asks
	// for; it returns the names that will be offered from the next call.
	Expand func(names []string) []string
	// Keep stores exact bytes in the vault and returns their id; shell
	// uses it for output too big to return whole. Nil disables it.
	Keep func(kind string, data []byte) (string, error)
	// HideEnv names environment variables shell commands must not see
	// (the variable holding the model's API key); KWS_API_KEY and
	// OPENAI_API_KEY are always hidden.
	HideEnv []string
	// ReadRoots are folders outside the workspace whose files read_file
	// may open by absolute path (the folders of folder skills); a symlink
	// in one may not lead out of it.
	ReadRoots []string
	// Sandbox, when set, confines every shell command with Landlock (see
	// package sandbox): writes only in the workspace, a private temp dir
	// and Sandbox.Writable, no reads of Sandbox.Hidden, network per
	// Sandbox.Network. Its Workspace and Temp are set per call. Nil runs
	// commands unconfined (where sandbox.Available says no).
	Sandbox *sandbox.Policy
	// Hidden are paths the file tools refuse to read, list or write, and
	// walks skip, whatever the workspace: kws's data dir (vault,
	// transcripts) and its config (which can hold the API key). The shell
	// is kept out of them by Sandbox.Hidden.
	Hidden []string
	// Jobs holds the agent's background shell jobs (shell with
	// background set, and the jobs tool); nil refuses background jobs.
	Jobs *Jobs
	// Stats reports the agent's figures of its own session for the stats
	// tool; nil leaves the tool without figures.
	Stats func() (string, error)
}
