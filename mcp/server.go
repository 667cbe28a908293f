// Package mcp connects kws to the Model Context Protocol both ways. Its
// server (NewServer) gives any MCP client — Claude Code, Codex, crush,
// opencode — kws's context vault, long-term memory and the swarm's task
// board, with the official Go SDK. Its client (StartClient, the
// client*.go files) runs the MCP servers the config names and offers their
// tools to kws agents as mcp__SERVER__TOOL.
package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/vault"
)

// DefaultMaxPut is the largest block one vault_put stores. A call
// carries its bytes in one JSON-RPC message (base64 makes binary a third
// bigger), which MaxMessage must hold.
const DefaultMaxPut = 32 << 20

// MaxMessage is the largest JSON-RPC message the server reads, on stdio
// and over HTTP: room for a DefaultMaxPut block in base64 and its
// envelope. A bigger message ends the stdio session (the transport cannot
// skip it) and is refused over HTTP with 413.
const MaxMessage = 48 << 20

// ServerConfig is what the MCP server serves.
type ServerConfig struct {
	// Vault serves ctx_get and ctx_search; *vault.Vault is one.
	Vault tools.Vault
	// Put stores exact bytes of a kind in the vault for vault_put and
	// returns the block's id; agent names the client's agent.
	Put func(kind, agent string, data []byte) (string, error)
	// Memory serves memory_search and memory_save; nil turns memory off,
	// and the memory tools say so.
	Memory tools.MemoryStore
	// Board returns the swarm's task board as the named agent sees it,
	// for the board tools.
	Board func(agent string) tools.Board
	// Workspace is the absolute, symlink-resolved directory the client
	// works in: it names memory's project scope and decides which
	// sensitive blocks ctx_search shows.
	Workspace string
	// Agent is the name the board and the vault know the client by;
	// empty means "mcp:" and the name the client gives in initialize.
	Agent string
	// Changed is called after a tool changed the vault, the memory or the
	// board, so that the workstation's panes show it at once; may be nil.
	Changed func()
	// MaxPut bounds one vault_put; 0 means DefaultMaxPut.
	MaxPut int
	// Allow decides whether a client may call a tool that changes memory
	// or the board (memory_save, board_add, board_claim, board_done), as
	// the user's permissions decide for the model's own memory_save and
	// todo: a non-nil error refuses the call and says why. Nil allows.
	Allow func(tool string) error
	// Version is kws's version, told to clients in initialize.
	Version string
	// Log receives the SDK's record of sessions and protocol errors; nil
	// discards it.
	Log *slog.Logger
}

// NewServer returns an MCP server with kws's tools: ctx_get, ctx_search
// and vault_put on the vault; memory_search and memory_save on memory;
// board_list, board_add, board_claim and board_done on the task board.
// The tools that mirror the agent's own keep their names, arguments and
// rules (package tools): a sensitive block is never served, a secret is
// never remembered.
func NewServer(c ServerConfig) *sdk.Server {
	if c.MaxPut <= 0 {
		c.MaxPut = DefaultMaxPut
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "kws", Title: "kws: exact context vault, memory and task board", Version: c.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: c.Log, Capabilities: &sdk.ServerCapabilities{}})
	h := handlers{c: c, env: &tools.Env{Workspace: c.Workspace, Vault: c.Vault, Memory: c.Memory}}
	s.AddTool(h.ctxGetTool(), h.ctxGet)
	h.addAgentTool(s, "ctx_search", false)
	sdk.AddTool(s, &sdk.Tool{Name: "vault_put", Description: fmt.Sprintf(vaultPutDoc, c.MaxPut), Annotations: additive("Store exact bytes in the vault")}, h.vaultPut)
	h.addAgentTool(s, "memory_search", false)
	h.addAgentTool(s, "memory_save", true)
	sdk.AddTool(s, &sdk.Tool{Name: "board_list", Description: boardListDoc, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, Title: "List the task board"}}, h.boardList)
	sdk.AddTool(s, &sdk.Tool{Name: "board_add", Description: boardAddDoc, Annotations: additive("Add a task to the board")}, h.boardAdd)
	sdk.AddTool(s, &sdk.Tool{Name: "board_claim", Description: boardClaimDoc, Annotations: additive("Claim a task on the board")}, h.boardClaim)
	sdk.AddTool(s, &sdk.Tool{Name: "board_done", Description: boardDoneDoc, Annotations: additive("Finish a task on the board")}, h.boardDone)
	return s
}

const instructions = `kws keeps exact evidence (tool outputs, logs, files) in a content-addressed vault shared by every agent of the user's workstation, a long-term memory of facts about the user and the project, and a task board the agents share. Search the vault with ctx_search and read a block exactly with ctx_get; keep output you or others will need with vault_put. Recall with memory_search before asking the user something they may have said before. Coordinate on the board: claim a task before working on it, mark it done after.`

// additive annotates a tool that adds to kws's stores and deletes
// nothing.
func additive(title string) *sdk.ToolAnnotations {
	no := false
	return &sdk.ToolAnnotations{Title: title, DestructiveHint: &no, OpenWorldHint: &no}
}

// handlers serve the tools' calls.
type handlers struct {
	c   ServerConfig
	env *tools.Env
}

// changed tells the workstation that a tool changed a store.
func (h handlers) changed() {
	if h.c.Changed != nil {
		h.c.Changed()
	}
}

// agent is the name the client's calls act as.
func (h handlers) agent(req *sdk.CallToolRequest) string {
	if h.c.Agent != "" {
		return h.c.Agent
	}
	name := ""
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			name = clientName(p.ClientInfo.Name)
		}
	}
	if name == "" {
		return "mcp"
	}
	return "mcp:" + name
}

// maxClientName bounds the client's name in an agent name.
const maxClientName = 40

// clientName makes the name a client gives itself fit for the board pane
// and the vault's records: one word (spaces become dashes), no control
// characters or escape sequences, at most maxClientName bytes.
func clientName(s string) string {
	s = strings.Map(func(r rune) rune {
		if !unicode.IsGraphic(r) {
			return -1
		}
		return r
	}, strings.Join(strings.Fields(s), "-"))
	for len(s) > maxClientName {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// addAgentTool serves the agent's own tool called name as it is: its
// description, its argument schema, its checks and its answer. write
// says that it changes a store.
func (h handlers) addAgentTool(s *sdk.Server, name string, write bool) {
	t, ok := tools.ByName(name)
	if !ok {
		panic("mcp: the agent has no tool " + name)
	}
	ann := &sdk.ToolAnnotations{ReadOnlyHint: !write}
	if write {
		ann = additive("")
	}
	s.AddTool(&sdk.Tool{Name: name, Description: t.Description(), InputSchema: t.Schema(), Annotations: ann},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if err := h.allow(name, write); err != nil {
				return errorResult(err.Error()), nil
			}
			res, err := t.Run(ctx, h.env, req.Params.Arguments)
			if err != nil {
				return errorResult(err.Error()), nil
			}
			if write && !res.IsError {
				h.changed()
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text}}, IsError: res.IsError}, nil
		})
}

// errorResult is a failed call the client's model reads.
func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}, IsError: true}
}

const ctxGetDoc = `Fetch the exact bytes of one block of kws's context vault: tool outputs, logs, files and messages kws's agents (or vault_put) stored. Find ids with ctx_search; references look like ` + "`<ctx id=\"ctx:3f9a1c2b7d4e\" …/>`" + `.

Arguments:
- ` + "`id`" + ` (required): the block id, e.g. ` + "`ctx:3f9a1c2b7d4e`" + ` (a unique prefix of at least 8 hex digits works).
- ` + "`reason`" + `: what you need from the block, in a few words.

Returns the block exactly, nothing added. Text (valid UTF-8) comes as one text content. Other bytes come as one embedded resource (uri kws:vault/ID, mimeType application/octet-stream) whose blob is the bytes in base64, after a text line saying so. The result's _meta holds kws/id, kws/bytes and kws/encoding ("utf-8" or "base64"). A block marked sensitive (it looks like it holds a secret) is not served.`

// ctxGetTool is ctx_get with the agent's argument schema and a
// description of what an MCP client gets back.
func (h handlers) ctxGetTool() *sdk.Tool {
	t, _ := tools.ByName("ctx_get")
	return &sdk.Tool{Name: "ctx_get", Description: ctxGetDoc, InputSchema: t.Schema(),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, Title: "Read a vault block exactly"}}
}

// ctxGet serves ctx_get: the agent's checks and refusals, then the bytes
// themselves rather than the agent's <ctx_exact> wrapper, which an MCP
// client has no use for.
func (h handlers) ctxGet(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	id, data, refused, err := tools.CtxGetBytes(h.env, req.Params.Arguments)
	switch {
	case err != nil:
		return errorResult(err.Error()), nil
	case refused.IsError:
		return errorResult(refused.Text), nil
	}
	if m, err := h.c.Vault.Meta(id); err == nil {
		id = m.ID // a prefix names the block by its whole id
	}
	res := &sdk.CallToolResult{Meta: sdk.Meta{"kws/id": id, "kws/bytes": len(data), "kws/encoding": "utf-8"}}
	if utf8.Valid(data) {
		res.Content = []sdk.Content{&sdk.TextContent{Text: string(data)}}
		return res, nil
	}
	res.Meta["kws/encoding"] = "base64"
	res.Content = []sdk.Content{
		&sdk.TextContent{Text: fmt.Sprintf("block %s is %d bytes that are not UTF-8 text; the resource's blob holds them exactly, base64-encoded", id, len(data))},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "kws:vault/" + id, MIMEType: "application/octet-stream", Blob: data}},
	}
	return res, nil
}

// vaultPutDoc is vault_put's description; %d is the most bytes one call
// stores.
const vaultPutDoc = `Store exact bytes in kws's context vault, where every kws agent and the user can find them (ctx_search) and read them back exactly (ctx_get): a build log, a test run, a file's version, evidence another agent will need. Storing the same bytes again returns the same id.

Give exactly one of ` + "`text`" + ` (UTF-8 text, stored as is) or ` + "`base64`" + ` (any bytes, base64-encoded), up to %d bytes. Returns the block's id and size; "sensitive" is true when the block looks like it holds a secret, and then ctx_get will not serve it.`

// putArgs are vault_put's arguments.
type putArgs struct {
	Text   string `json:"text,omitempty" jsonschema:"the exact text to store (UTF-8); give text or base64, not both"`
	Base64 string `json:"base64,omitempty" jsonschema:"the exact bytes to store, base64-encoded (standard alphabet, padded), for data that is not UTF-8 text"`
	Kind   string `json:"kind,omitempty" jsonschema:"what the block is, e.g. log, file, tool:shell (default mcp)"`
}

// putResult is what vault_put returns.
type putResult struct {
	ID        string `json:"id" jsonschema:"the block's id, for ctx_get"`
	Bytes     int    `json:"bytes" jsonschema:"how many bytes were stored"`
	Sensitive bool   `json:"sensitive" jsonschema:"the block looks like it holds a secret: ctx_get will not serve it"`
}

// vaultPut serves vault_put.
func (h handlers) vaultPut(_ context.Context, req *sdk.CallToolRequest, a putArgs) (*sdk.CallToolResult, putResult, error) {
	var data []byte
	switch {
	case a.Text != "" && a.Base64 != "":
		return nil, putResult{}, errors.New(`vault_put: give "text" or "base64", not both`)
	case a.Text != "":
		data = []byte(a.Text)
	case a.Base64 != "":
		if base64.StdEncoding.DecodedLen(len(a.Base64)) > h.c.MaxPut+2 {
			return nil, putResult{}, tooBig(base64.StdEncoding.DecodedLen(len(a.Base64)), h.c.MaxPut)
		}
		var err error
		if data, err = base64.StdEncoding.DecodeString(a.Base64); err != nil {
			return nil, putResult{}, fmt.Errorf(`vault_put: "base64" is not valid standard base64: %v`, err)
		}
	}
	switch {
	case len(data) == 0:
		return nil, putResult{}, errors.New(`vault_put: nothing to store: "text" or "base64" must not be empty`)
	case len(data) > h.c.MaxPut:
		return nil, putResult{}, tooBig(len(data), h.c.MaxPut)
	}
	kind := strings.TrimSpace(a.Kind)
	if kind == "" {
		kind = "mcp"
	}
	id, err := h.c.Put(kind, h.agent(req), data)
	if err != nil {
		return nil, putResult{}, fmt.Errorf("vault_put: %w", err)
	}
	h.changed()
	out := putResult{ID: id, Bytes: len(data)}
	if m, err := h.c.Vault.Meta(id); err == nil {
		out.Sensitive = m.Sensitive
	}
	return nil, out, nil
}

// tooBig is vault_put's answer to a block over the limit.
func tooBig(n, limit int) error {
	return fmt.Errorf("vault_put: the block is %d bytes; one call stores at most %d (%d MiB): split it", n, limit, limit>>20)
}

const (
	boardListDoc  = `List the task board that kws's agents and the user share: every task with its id (t1, t2, …), title, detail, status (open, claimed or done) and owner. Returns the tasks in the order they were added, and the agent name your calls act as.`
	boardAddDoc   = `Add an open task to the shared task board, for you or another agent to claim. Returns the new task and its id.`
	boardClaimDoc = `Claim a task on the shared task board before working on it, so no other agent takes it. Claiming a task you hold already changes nothing; a task another agent holds, or a finished one, is refused with who holds it.`
	boardDoneDoc  = `Mark a task on the shared task board done. You may finish a task you hold, or an open one (it becomes yours); a task another agent holds is refused.`
)

// boardListArgs are board_list's (no) arguments.
type boardListArgs struct{}

// boardList is what board_list returns.
type boardList struct {
	Agent string       `json:"agent" jsonschema:"the agent name your calls act as"`
	Tasks []vault.Task `json:"tasks" jsonschema:"every task, in the order they were added"`
}

// boardAddArgs are board_add's arguments.
type boardAddArgs struct {
	Title  string `json:"title" jsonschema:"what is to be done, in one line"`
	Detail string `json:"detail,omitempty" jsonschema:"more about the task: where, how, what done means"`
}

// boardIDArgs name one task.
type boardIDArgs struct {
	ID string `json:"id" jsonschema:"the task's id from board_list, e.g. t3"`
}

// boardTask is what the board's changing tools return.
type boardTask struct {
	Task vault.Task `json:"task" jsonschema:"the task as it is now"`
}

func (h handlers) boardList(_ context.Context, req *sdk.CallToolRequest, _ boardListArgs) (*sdk.CallToolResult, boardList, error) {
	b := h.c.Board(h.agent(req))
	tasks, err := b.List()
	if err != nil {
		return nil, boardList{}, fmt.Errorf("board_list: %w", err)
	}
	return nil, boardList{Agent: b.Agent(), Tasks: append([]vault.Task{}, tasks...)}, nil
}

func (h handlers) boardAdd(_ context.Context, req *sdk.CallToolRequest, a boardAddArgs) (*sdk.CallToolResult, boardTask, error) {
	return h.boardChange("board_add", func(b tools.Board) (vault.Task, error) { return b.Add(a.Title, a.Detail) }, req)
}

func (h handlers) boardClaim(_ context.Context, req *sdk.CallToolRequest, a boardIDArgs) (*sdk.CallToolResult, boardTask, error) {
	return h.boardChange("board_claim", func(b tools.Board) (vault.Task, error) { return b.Claim(a.ID) }, req)
}

func (h handlers) boardDone(_ context.Context, req *sdk.CallToolRequest, a boardIDArgs) (*sdk.CallToolResult, boardTask, error) {
	return h.boardChange("board_done", func(b tools.Board) (vault.Task, error) { return b.Done(a.ID) }, req)
}

// allow asks ServerConfig.Allow about a call of tool that writes.
func (h handlers) allow(tool string, write bool) error {
	if !write || h.c.Allow == nil {
		return nil
	}
	return h.c.Allow(tool)
}

// boardChange runs one change of the board as the client's agent.
func (h handlers) boardChange(tool string, change func(tools.Board) (vault.Task, error), req *sdk.CallToolRequest) (*sdk.CallToolResult, boardTask, error) {
	if err := h.allow(tool, true); err != nil {
		return nil, boardTask{}, err
	}
	t, err := change(h.c.Board(h.agent(req)))
	if err != nil {
		return nil, boardTask{}, fmt.Errorf("%s: %s", tool, strings.TrimPrefix(err.Error(), "vault: "))
	}
	h.changed()
	return nil, boardTask{Task: t}, nil
}
