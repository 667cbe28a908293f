package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/config"
)

// fakeMCP is the MCP client of a workstation test: one server with one
// tool that counts its runs, and one server that failed.
type fakeMCP struct {
	runs   atomic.Int32
	closed atomic.Bool
}

type fakeMCPTool struct{ m *fakeMCP }

func (t fakeMCPTool) Name() string            { return "mcp__fake__hello" }
func (t fakeMCPTool) Description() string     { return "says hello" }
func (t fakeMCPTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t fakeMCPTool) Access() tools.Access    { return tools.Network }
func (t fakeMCPTool) Run(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
	t.m.runs.Add(1)
	return tools.Result{Text: "hello from MCP"}, nil
}

func (m *fakeMCP) Groups() []tools.Group {
	return []tools.Group{{Name: "mcp__fake", Label: "MCP server fake", Tools: []tools.Tool{fakeMCPTool{m}}}}
}
func (m *fakeMCP) Permissions() map[string]string { return nil }
func (m *fakeMCP) Prompt() string                 { return "" }
func (m *fakeMCP) Missing(string) string          { return "" }
func (m *fakeMCP) Summary() string                { return "fake: connected, 1 tools\nbad: failed: boom" }
func (m *fakeMCP) Problems() []string             { return []string{"MCP server bad failed: boom"} }
func (m *fakeMCP) Failed() (int, int)             { return 1, 2 }
func (m *fakeMCP) Close()                         { m.closed.Store(true) }

// TestWorkstationMcpToolsAskAndRun: with MCP servers configured, the
// workstation's agents get their tools, a call asks in the approval
// dialog like any tool and runs once allowed; a server's failure is in
// the status bar, as a notice and as a lasting count, the palette command mcp shows every server's state,
// and closing the workstation stops the servers.
func TestWorkstationMcpToolsAskAndRun(t *testing.T) {
	fake := &fakeMCP{}
	var started atomic.Int32
	o := Options{MCP: func(cfg config.Config, ws string, _ *slog.Logger) MCPClient {
		if _, ok := cfg.MCP.Servers["fake"]; ok {
			started.Add(1)
		}
		return fake
	}}
	r := newWSRigOpts(t, 160, 48, true, func(string, *Flags) {
		dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kws")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[mcp.servers.fake]\ncommand = \"fake-mcp\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}, o)
	if started.Load() != 1 {
		t.Fatalf("the MCP client started %d times", started.Load())
	}
	r.waitFor("MCP server bad failed: boom")
	// After the notice, the failed server stays in the status bar.
	r.waitFor("mcp: 1/2 failed (C-b :mcp)")
	r.srv.Push(
		providertest.ToolStep(provider.ToolCall{ID: "call-1", Name: "mcp__fake__hello", Arguments: `{}`}),
		providertest.TextStep("it said hello"),
	)
	r.typeText("greet me")
	r.press("Enter")
	r.waitFor("agent-1 wants to run mcp__fake__hello")
	r.waitFor("y  allow once")
	if fake.runs.Load() != 0 {
		t.Fatal("the MCP tool ran before it was approved")
	}
	r.press("y")
	r.waitFor("it said hello")
	if fake.runs.Load() != 1 {
		t.Fatalf("the MCP tool ran %d times", fake.runs.Load())
	}
	reqs := r.srv.Requests()
	if got := reqs[len(reqs)-1].Messages; got[len(got)-1].Content != "hello from MCP" {
		t.Fatalf("the tool result did not reach the model: %+v", got[len(got)-1])
	}
	r.press("Ctrl-b", ":")
	r.typeText("mcp")
	r.press("Enter")
	r.waitFor("fake: connected, 1 tools")
	r.waitFor("bad: failed: boom")
	r.w.Close()
	if !fake.closed.Load() {
		t.Fatal("closing the workstation did not stop the MCP servers")
	}
}

// quietMCP is fakeMCP without a failed server, so that no MCP notice
// replaces the one a test waits for.
type quietMCP struct{ *fakeMCP }

func (quietMCP) Problems() []string { return nil }

// TestWorkstationWorkspaceMcpRedefinitionWarns: a workspace's config that
// redefines one of the user's MCP servers does not take the agents offline:
// the user's server is the one started, and the status bar says what was
// ignored.
func TestWorkstationWorkspaceMcpRedefinitionWarns(t *testing.T) {
	var command atomic.Value
	o := Options{MCP: func(cfg config.Config, ws string, _ *slog.Logger) MCPClient {
		command.Store(cfg.MCP.Servers["fake"].Command)
		return quietMCP{&fakeMCP{}}
	}}
	r := newWSRigOpts(t, 200, 48, true, func(ws string, _ *Flags) {
		for path, text := range map[string]string{
			filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kws", "config.toml"): "[mcp.servers.fake]\ncommand = \"fake-mcp\"\n",
			filepath.Join(ws, ".kws", "config.toml"):                          "[mcp.servers.fake]\ncommand = \"sh\"\n",
		} {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}, o)
	r.waitFor("ignored mcp.servers.fake (your own config defines it")
	if r.w.cfgErr != nil {
		t.Fatalf("the workspace's config took the agents offline: %v", r.w.cfgErr)
	}
	if got := command.Load(); got != "fake-mcp" {
		t.Fatalf("the MCP client started server fake as %v, not the user's fake-mcp", got)
	}
}
