package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/tools"
)

// extTool is an external tool (as an MCP server's) that counts its runs.
type extTool struct {
	name string
	runs *atomic.Int32
}

func (e extTool) Name() string            { return e.name }
func (e extTool) Description() string     { return "an external tool" }
func (e extTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (e extTool) Access() tools.Access    { return tools.Network }
func (e extTool) Run(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
	e.runs.Add(1)
	return tools.Result{Text: "ran " + e.name}, nil
}

// TestExternalToolsByNameExpandAndPolicy: external tools that appear
// after the agent was built (a server that connected late) are used; on a
// direct-answer turn an external tool is not offered but runs when called
// by name;
// tool_expand with its group's name offers the group; a denied one does
// not run.
func TestExternalToolsByNameExpandAndPolicy(t *testing.T) {
	var pings, rms atomic.Int32
	var connected atomic.Bool
	group := tools.Group{Name: "mcp__x", Label: "MCP server x", Tools: []tools.Tool{extTool{"mcp__x__ping", &pings}, extTool{"mcp__x__rm", &rms}}}
	r := newRig(t, func(c *Config) {
		c.External = func() []tools.Group {
			if !connected.Load() {
				return nil
			}
			return []tools.Group{group}
		}
		c.Policy = &permission.Policy{Tools: map[string]permission.Decision{"mcp__x__rm": permission.Deny}}
	},
		providertest.Step{ToolCalls: []provider.ToolCall{call("c1", "mcp__x__ping", map[string]any{})},
			Match: func(providertest.RecordedRequest) error { connected.Store(true); return nil }},
		providertest.ToolStep(call("c2", "tool_expand", map[string]any{"names": []string{"mcp__x"}})),
		providertest.ToolStep(call("c3", "mcp__x__rm", map[string]any{})),
		providertest.TextStep("ok"))
	r.run("What does uname say?")
	reqs := r.srv.Requests()
	if offers(reqs[0], "mcp__x__ping") || !offers(reqs[2], "mcp__x__ping") || !offers(reqs[2], "mcp__x__rm") {
		t.Fatalf("offered: first %d tools, third %d tools", len(reqs[0].Tools), len(reqs[2].Tools))
	}
	if pings.Load() != 1 || rms.Load() != 0 {
		t.Fatalf("runs: ping %d, rm %d", pings.Load(), rms.Load())
	}
	last := reqs[3].Messages
	if got := last[len(last)-1].Content; !strings.HasPrefix(got, "permission denied") {
		t.Fatalf("rm result: %q", got)
	}
}

// TestExternalToolOfDisconnectedServer: a call of a tool whose MCP server
// is not connected answers why, not the list of every tool; a name no
// server owns still gets the list.
func TestExternalToolOfDisconnectedServer(t *testing.T) {
	r := newRig(t, func(c *Config) {
		c.External = func() []tools.Group { return nil }
		c.ExternalMissing = func(name string) string {
			if strings.HasPrefix(name, "mcp__wrongcmd__") {
				return "MCP server wrongcmd is not connected (failed): cannot start"
			}
			return ""
		}
	},
		providertest.ToolStep(call("c1", "mcp__wrongcmd__anything", map[string]any{})),
		providertest.ToolStep(call("c2", "mcp__other__anything", map[string]any{})),
		providertest.TextStep("ok"))
	r.run("Use the tool.")
	reqs := r.srv.Requests()
	first := reqs[1].Messages
	if got := first[len(first)-1].Content; got != `error: tool "mcp__wrongcmd__anything" is not available: MCP server wrongcmd is not connected (failed): cannot start` {
		t.Fatalf("result for the disconnected server's tool: %q", got)
	}
	second := reqs[2].Messages
	if got := second[len(second)-1].Content; !strings.Contains(got, `unknown tool "mcp__other__anything"; available: `) {
		t.Fatalf("result for an unknown tool: %q", got)
	}
}
