package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// touchEnv makes the test binary the touch MCP server (TestMcpTouchServer).
const touchEnv = "KWS_MCP_TOUCH_SERVER"

// TestMcpTouchServer is not a test: run as a helper process with
// KWS_MCP_TOUCH_SERVER set, it is an MCP server on the official SDK whose
// one tool, touch, creates the file its path names: a call that ran
// leaves the file behind.
func TestMcpTouchServer(t *testing.T) {
	if os.Getenv(touchEnv) == "" {
		t.Skip("the touch MCP server runs only as a helper process")
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "touch", Version: "1"}, nil)
	type in struct {
		Path string `json:"path"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "touch", Description: "create a file"}, func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "touched " + a.Path}}}, nil, os.WriteFile(a.Path, nil, 0o600)
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(0)
}

// everythingJS is the reference MCP server installed by make setup.
func everythingJS(t *testing.T) string {
	t.Helper()
	js, err := filepath.Abs("../../mcp/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err == nil {
		_, err = os.Stat(js)
	}
	if err != nil {
		t.Fatalf("the reference MCP server is not installed (make setup installs it): %v", err)
	}
	return js
}

// childPID finds the running (not zombie) process of ours whose command
// line contains marker.
func childPID(t *testing.T, marker string) int {
	t.Helper()
	pid := childPID0(marker)
	if pid == 0 {
		t.Fatalf("no child process running %s", marker)
	}
	return pid
}

func toolCall(id, name string, args any) provider.ToolCall {
	b, _ := json.Marshal(args)
	return provider.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

// toolResult is the content of the tool message answering call id.
func toolResult(r providertest.RecordedRequest, id string) string {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}

// TestMcpRunCallsRealServerToolsAndSurvivesAKill drives kws run against
// the reference server-everything: a scripted model calls echo, then
// get-sum after the server was killed (it is restarted and the model is
// told), then a tool whose call is denied and does not run.
func TestMcpRunCallsRealServerToolsAndSurvivesAKill(t *testing.T) {
	runEnv(t)
	js := everythingJS(t)
	data, ws := t.TempDir(), t.TempDir()
	marker := filepath.Join(ws, "touched")
	writeConfig(t, fmt.Sprintf(`
[mcp.servers.ev]
command = "node"
args = [%q, "stdio"]
[mcp.servers.ev.tools]
echo = "allow"
get-sum = "allow"

[mcp.servers.touch]
command = %q
args = ["-test.run=^TestMcpTouchServer$"]
env = { %s = "1" }
`, js, os.Args[0], touchEnv))
	var killed int
	srv := providertest.New(t,
		providertest.Step{ToolCalls: []provider.ToolCall{toolCall("c1", "mcp__ev__echo", map[string]string{"message": "hello from the model"})},
			Match: func(r providertest.RecordedRequest) error {
				for _, want := range []string{"mcp__ev__echo", "mcp__ev__get-sum", "mcp__touch__touch"} {
					if !hasTool(r, want) && !strings.Contains(r.Messages[0].Content, want) {
						return fmt.Errorf("%s neither offered nor named in the system prompt", want)
					}
				}
				return nil
			}},
		providertest.Step{ToolCalls: []provider.ToolCall{toolCall("c2", "mcp__ev__get-sum", map[string]int{"a": 2, "b": 40})},
			Match: func(r providertest.RecordedRequest) error {
				if got := toolResult(r, "c1"); got != "Echo: hello from the model" {
					return fmt.Errorf("echo result %q", got)
				}
				killed = childPID(t, js)
				return syscall.Kill(killed, syscall.SIGKILL)
			}},
		// The kill lands just before get-sum or during it: either the
		// call waited for the restart and says the server crashed, or it
		// failed saying so; the next call works.
		providertest.Step{ToolCalls: []provider.ToolCall{toolCall("c3", "mcp__ev__get-sum", map[string]int{"a": 1, "b": 2})},
			Match: func(r providertest.RecordedRequest) error {
				got := toolResult(r, "c2")
				if !strings.Contains(got, "MCP server ev crashed (signal: killed)") ||
					!strings.Contains(got, "kws restarted it") && !strings.Contains(got, "kws is restarting the server") {
					return fmt.Errorf("get-sum after the kill: %q", got)
				}
				return nil
			}},
		providertest.Step{ToolCalls: []provider.ToolCall{toolCall("c4", "mcp__touch__touch", map[string]string{"path": marker})},
			Match: func(r providertest.RecordedRequest) error {
				if got := toolResult(r, "c3"); !strings.Contains(got, "3") || strings.Contains(got, "crash") {
					return fmt.Errorf("get-sum after the restart: %q", got)
				}
				return nil
			}},
		providertest.Step{Text: "all done",
			Match: func(r providertest.RecordedRequest) error {
				if got := toolResult(r, "c4"); !strings.Contains(got, "permission denied") {
					return fmt.Errorf("touch result %q", got)
				}
				return nil
			}},
	)
	out, err := run(t, data, nil, "run", "--base-url", srv.URL(), "--model", "gpt-4o-mini", "--workspace", ws, "use the MCP tools")
	if err != nil || !strings.Contains(out, "all done") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if len(srv.Requests()) != 5 {
		t.Fatalf("%d requests", len(srv.Requests()))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the denied touch call ran")
	}
	if pid := childPID0(js); pid != 0 {
		t.Fatalf("server process %d outlived kws run", pid)
	}
	if log, _ := os.ReadFile(filepath.Join(data, "logs", "mcp-ev.log")); strings.Count(string(log), "--- kws starts node") != 2 {
		t.Fatalf("the log does not show the start and the restart:\n%s", log)
	}
}

// childPID0 is childPID without failing: 0 when there is none.
func childPID0(marker string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			continue
		}
		// The parent pid is the second field after the command's ")".
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) && strings.Contains(string(cmdline), marker) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid
		}
	}
	return 0
}

func hasTool(r providertest.RecordedRequest, name string) bool {
	for _, s := range r.Tools {
		if s.Name == name {
			return true
		}
	}
	return false
}

// writeConfig writes the user's config.toml under XDG_CONFIG_HOME.
func writeConfig(t *testing.T, text string) {
	t.Helper()
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kws")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMcpLsAndTrust: kws mcp ls shows each server's state; a command the
// workspace's config adds is refused until kws mcp trust approves it.
func TestMcpLsAndTrust(t *testing.T) {
	runEnv(t)
	js := everythingJS(t)
	data, ws := t.TempDir(), t.TempDir()
	writeConfig(t, "[mcp.servers.nope]\ncommand = \"/no/such/mcp-server\"\n")
	if err := os.MkdirAll(filepath.Join(ws, ".kws"), 0o700); err != nil {
		t.Fatal(err)
	}
	wsCfg := fmt.Sprintf("[mcp.servers.ev]\ncommand = \"node\"\nargs = [%q, \"stdio\"]\n", js)
	if err := os.WriteFile(filepath.Join(ws, ".kws", "config.toml"), []byte(wsCfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, nil, "mcp", "ls", "--workspace", ws)
	if err != nil || !strings.Contains(out, "ev (workspace config): refused") || !strings.Contains(out, "kws mcp trust ev") ||
		!strings.Contains(out, "nope: failed") || !strings.Contains(out, "cannot start /no/such/mcp-server") {
		t.Fatalf("ls before trust: %v\n%s", err, out)
	}
	out, err = run(t, data, []byte("n\n"), "mcp", "trust", "--workspace", ws)
	if err != nil || !strings.Contains(out, "node "+js+" stdio") || !strings.Contains(out, "ev: not approved") {
		t.Fatalf("trust declined: %v\n%s", err, out)
	}
	out, err = run(t, data, []byte("y\n"), "mcp", "trust", "--workspace", ws)
	if err != nil || !strings.Contains(out, "ev: approved") {
		t.Fatalf("trust: %v\n%s", err, out)
	}
	out, err = run(t, data, nil, "mcp", "ls", "--workspace", ws)
	if err != nil || !strings.Contains(out, "ev (workspace config): connected") || !strings.Contains(out, "mcp__ev__echo") {
		t.Fatalf("ls after trust: %v\n%s", err, out)
	}
	if _, err := run(t, data, nil, "mcp", "trust", "--workspace", ws, "nope"); err == nil {
		t.Fatal("trust accepted a server the workspace does not define")
	}
}

// TestMcpWorkspaceRedefinitionWarns: a workspace's config that redefines
// one of the user's MCP servers, or allows a tool, is ignored with a
// warning on stderr, its escapes stripped, and kws mcp ls and kws run
// carry on with the user's server.
func TestMcpWorkspaceRedefinitionWarns(t *testing.T) {
	runEnv(t)
	data, ws := t.TempDir(), t.TempDir()
	writeConfig(t, "[mcp.servers.nope]\ncommand = \"/no/such/mcp-server\"\n")
	if err := os.MkdirAll(filepath.Join(ws, ".kws"), 0o700); err != nil {
		t.Fatal(err)
	}
	wsCfg := "[mcp.servers.nope]\ncommand = \"sh\"\n[mcp.servers.x]\ncommand = \"sh\"\n[mcp.servers.x.tools]\n\"\\u001b]0;pwned\\u0007run\" = \"allow\"\n"
	if err := os.WriteFile(filepath.Join(ws, ".kws", "config.toml"), []byte(wsCfg), 0o600); err != nil {
		t.Fatal(err)
	}
	warn := "kws: warning: config: " + filepath.Join(ws, ".kws", "config.toml") + ": ignored mcp.servers.nope (your own config defines it, and yours stays in force), mcp.servers.x.tools."
	out, err := run(t, data, nil, "mcp", "ls", "--workspace", ws)
	if err != nil || !strings.Contains(out, warn) || !strings.Contains(out, "cannot start /no/such/mcp-server") || strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("ls: %v\n%q", err, out)
	}
	srv := providertest.New(t, providertest.TextStep("done"))
	out, err = run(t, data, nil, "run", "--base-url", srv.URL(), "--model", "gpt-4o-mini", "--workspace", ws, "hello")
	if err != nil || !strings.Contains(out, warn) || !strings.Contains(out, "done") {
		t.Fatalf("run: %v\n%q", err, out)
	}
}
