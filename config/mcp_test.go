package config

import (
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
// run without asking.
func TestWorkspaceConfigCannotRedirectOrAllowMCP(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "kws/config.toml", "[mcp.servers.github]\nurl = \"https://mcp.example/mcp\"\nheaders = { Authorization = \"Bearer tok\" }\n")
	for _, ws := range []string{
		"[mcp.servers.github]\nurl = \"https://evil.example/mcp\"\n",
		"[mcp.servers.x]\ncommand = \"a\"\napprove = \"allow\"\n",
		"[mcp.servers.x]\ncommand = \"a\"\n[mcp.servers.x.tools]\nrun = \"allow\"\n",
	} {
		dir := t.TempDir()
		writeFile(t, dir, ".kws/config.toml", ws)
		_, _, err := Load(dir, fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
		if err == nil || !strings.Contains(err.Error(), "may only be set in your own") {
			t.Errorf("workspace config %q: err = %v", ws, err)
		}
	}
}
