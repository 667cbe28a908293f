package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kwsdev/kws/config"
)

// fakeEnv selects the fake server TestClientFakeServer runs as.
const fakeEnv = "KWS_MCP_FAKE"

// fakeServer is a config that runs this test binary as the fake MCP
// server mode (see TestClientFakeServer).
func fakeServer(mode string, timeout string) config.MCPServer {
	return config.MCPServer{Command: os.Args[0], Args: []string{"-test.run=^TestClientFakeServer$"},
		Env: map[string]string{fakeEnv: mode}, Timeout: timeout}
}

// TestClientFakeServer is not a test: run by a test as a server process
// with KWS_MCP_FAKE set, it is a tiny MCP server that misbehaves on
// purpose. Modes: "garbage" prints non-JSON on stdout; "silent" never
// answers; "tools" answers initialize and lists a good tool, one with an
// invalid input schema and one with a name that cannot be a function
// name; its "big" tool returns 50 MB of text, "hang" never answers, "die"
// exits.
func TestClientFakeServer(t *testing.T) {
	mode := os.Getenv(fakeEnv)
	if mode == "" {
		t.Skip("the fake MCP server runs only as a helper process")
	}
	fmt.Fprintln(os.Stderr, "fake server starting in mode", mode)
	if mode == "garbage" {
		fmt.Println("Hello! this is not JSON-RPC")
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	send := func(id json.RawMessage, result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
	for in.Scan() {
		if mode != "tools" {
			continue
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string         `json:"protocolVersion"`
				Name            string         `json:"name"`
				Arguments       map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "initialize":
			send(req.ID, map[string]any{"protocolVersion": req.Params.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "fake", "version": "1"}})
		case "tools/list":
			obj := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "string"}}}
			send(req.ID, map[string]any{"tools": []any{
				map[string]any{"name": "big", "description": "50 MB of text", "inputSchema": obj},
				map[string]any{"name": "hang", "description": "never answers", "inputSchema": obj},
				map[string]any{"name": "die", "description": "exits", "inputSchema": obj},
				map[string]any{"name": "bad_schema", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": 12}}}},
				map[string]any{"name": "not_object", "inputSchema": map[string]any{"type": "string"}},
				map[string]any{"name": "bad name!", "inputSchema": obj},
			}})
		case "tools/call":
			switch req.Params.Name {
			case "big":
				line := strings.Repeat("x", 99) + "\n"
				send(req.ID, map[string]any{"content": []any{map[string]any{"type": "text",
					"text": "BEGIN\n" + strings.Repeat(line, 500_000) + "END\n"}}})
			case "die":
				os.Exit(3)
			case "hang":
			}
		default:
			send(req.ID, map[string]any{})
		}
	}
	os.Exit(0)
}
