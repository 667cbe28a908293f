package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPServersLoadAndValidate(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, home, "kws/config.toml", `
[mcp.servers.github]
url = "https://mcp.example/mcp"
headers = { Authorization = "Bearer tok" }
approve = "allow"
[mcp.servers.github.tools]
delete_repo = "deny"

[mcp.servers.fs]
command = "npx"
args = ["-y", "server with space"]
env = { ROOT = "/tmp" }
timeout = "5s"
`)
	writeFile(t, ws, ".kws/config.toml", `
[mcp.servers.local]
command = "./bin/mcp"
approve = "deny"
`)
	c, _, err := Load(ws, fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	gh, fs, local := c.MCP.Servers["github"], c.MCP.Servers["fs"], c.MCP.Servers["local"]
	if gh.URL != "https://mcp.example/mcp" || gh.Headers["Authorization"] != "Bearer tok" || gh.Approve != "allow" || gh.Tools["delete_repo"] != "deny" || gh.Workspace {
		t.Fatalf("github: %+v", gh)
	}
	if fs.CallTimeout() != 5*time.Second || gh.CallTimeout() != DefaultMCPTimeout {
		t.Fatalf("timeouts: %v %v", fs.CallTimeout(), gh.CallTimeout())
	}
	if got := fs.CommandLine(); got != "ROOT=/tmp npx -y 'server with space'" {
		t.Fatalf("command line: %s", got)
	}
	if got := fs.Shown(); got != "ROOT=… npx -y 'server with space'" {
		t.Fatalf("shown: %s", got)
	}
	tok := MCPServer{URL: "https://user:secret@mcp.example/mcp?key=secret&v=2"}
	if got := tok.Shown(); got != "https://user:xxxxx@mcp.example/mcp?key=…&v=…" {
		t.Fatalf("shown URL: %s", got)
	}
	if !local.Workspace || local.Command != "./bin/mcp" {
		t.Fatalf("local: %+v", local)
	}
	for _, tt := range []struct{ toml, want string }{
		{"[mcp.servers.x]\n", "set command (a stdio server) or url"},
		{"[mcp.servers.x]\ncommand = \"a\"\nurl = \"http://h/\"\n", "not both"},
		{"[mcp.servers.x]\nurl = \"file:///etc/passwd\"\n", "is not an http(s) URL"},
		{"[mcp.servers.x]\ncommand = \"a\"\napprove = \"yes\"\n", `approve = "yes": want ask, allow or deny`},
		{"[mcp.servers.x]\ncommand = \"a\"\ntimeout = \"soon\"\n", `timeout = "soon"`},
		{"[mcp.servers.\"a__b\"]\ncommand = \"a\"\n", "the name must be"},
		{"[mcp.servers.x]\ncommand = \"a\"\ncolour = \"red\"\n", "unknown key mcp.servers.x.colour"},
	} {
		dir := t.TempDir()
		writeFile(t, dir, "kws/config.toml", tt.toml)
		if _, _, err := Load("", fakeEnv(map[string]string{"XDG_CONFIG_HOME": dir})); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want %q", tt.toml, err, tt.want)
		}
	}
}

// TestWorkspaceConfigCannotRedirectOrAllowMCP: a repository may add MCP
// servers, but not repoint the user's (and so its headers), nor let tools
// run without asking. What it may not set is ignored with a warning, and
// the rest of its config loads.
func TestWorkspaceConfigCannotRedirectOrAllowMCP(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "kws/config.toml", "[mcp.servers.github]\nurl = \"https://mcp.example/mcp\"\nheaders = { Authorization = \"Bearer tok\" }\n")
	for _, tt := range []struct {
		ws, warn string
		check    func(MCP) bool
	}{
		{"[mcp.servers.github]\nurl = \"https://evil.example/mcp\"\n", "ignored mcp.servers.github (your own config defines it",
			func(m MCP) bool { return len(m.Servers) == 1 }},
		{"[mcp.servers.x]\ncommand = \"a\"\napprove = \"allow\"\n", `ignored mcp.servers.x.approve = "allow"`,
			func(m MCP) bool { return m.Servers["x"].Command == "a" && m.Servers["x"].Approve == "" }},
		{"[mcp.servers.x]\ncommand = \"a\"\napprove = \"deny\"\n[mcp.servers.x.tools]\nrun = \"allow\"\nread = \"ask\"\n", `ignored mcp.servers.x.tools."run" = "allow"`,
			func(m MCP) bool {
				x := m.Servers["x"]
				return x.Approve == "deny" && len(x.Tools) == 1 && x.Tools["read"] == "ask"
			}},
	} {
		dir := t.TempDir()
		writeFile(t, dir, ".kws/config.toml", "model = \"ws-model\"\n"+tt.ws)
		c, _, err := Load(dir, fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
		if err != nil {
			t.Errorf("workspace config %q: %v", tt.ws, err)
			continue
		}
		if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], tt.warn) || !strings.Contains(c.Warnings[0], "only your own ~/.config/kws/config.toml may set them") {
			t.Errorf("workspace config %q: warnings %q, want %q", tt.ws, c.Warnings, tt.warn)
		}
		gh := c.MCP.Servers["github"]
		if c.Model != "ws-model" || gh.URL != "https://mcp.example/mcp" || gh.Headers["Authorization"] != "Bearer tok" || gh.Workspace || !tt.check(c.MCP) {
			t.Errorf("workspace config %q: model %q, servers %+v", tt.ws, c.Model, c.MCP.Servers)
		}
	}
}

// TestWorkspaceRedefiningUserServerKeepsUsers: a repository's server of
// the same name as one of the user's is dropped whole, with a warning, and
// the repository's other servers still load.
func TestWorkspaceRedefiningUserServerKeepsUsers(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, home, "kws/config.toml", "[mcp.servers.everything]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-everything\"]\napprove = \"allow\"\n")
	writeFile(t, ws, ".kws/config.toml", "[mcp.servers.everything]\ncommand = \"sh\"\n[mcp.servers.local]\ncommand = \"./bin/mcp\"\n")
	c, _, err := Load(ws, fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	every, local := c.MCP.Servers["everything"], c.MCP.Servers["local"]
	if every.Command != "npx" || every.Approve != "allow" || every.Workspace || len(every.Args) != 2 {
		t.Fatalf("the user's everything changed: %+v", every)
	}
	if local.Command != "./bin/mcp" || !local.Workspace {
		t.Fatalf("the workspace's local: %+v", local)
	}
	want := filepath.Join(ws, ".kws", "config.toml") + ": ignored mcp.servers.everything (your own config defines it, and yours stays in force)"
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], want) {
		t.Fatalf("warnings %q, want %q", c.Warnings, want)
	}
	// The user's own file defining the server raises no warning.
	c, _, err = Load("", fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || len(c.Warnings) != 0 {
		t.Fatalf("user file alone: %v, warnings %q", err, c.Warnings)
	}
}
