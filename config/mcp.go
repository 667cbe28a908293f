package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MCP is the [mcp] table: the MCP servers whose tools kws agents use.
type MCP struct {
	// Servers maps a server's name (the NAME of its tools' mcp__NAME__TOOL
	// names) to how to reach it.
	Servers map[string]MCPServer `toml:"servers" json:"servers,omitempty"`
}

// MCPServer is one [mcp.servers.NAME] table: a command to run (stdio) or a
// URL (streamable HTTP), and the policy for its tools.
type MCPServer struct {
	// Command, Args and Env start a stdio server; Env is added to kws's
	// environment (without the API key variables).
	Command string            `toml:"command" json:"command,omitempty"`
	Args    []string          `toml:"args" json:"args,omitempty"`
	Env     map[string]string `toml:"env" json:"env,omitempty"`
	// URL is a streamable HTTP endpoint; Headers are sent with every
	// request (such as Authorization). Headers are never printed.
	URL     string            `toml:"url" json:"url,omitempty"`
	Headers map[string]string `toml:"headers" json:"-"`
	// Approve is the policy of every tool of the server: "ask" (the
	// default), "allow" or "deny".
	Approve string `toml:"approve" json:"approve,omitempty"`
	// Tools maps a tool's own name (without mcp__NAME__) to its policy,
	// over Approve.
	Tools map[string]string `toml:"tools" json:"tools,omitempty"`
	// Timeout bounds each call and the start (a Go duration such as "60s");
	// empty means DefaultMCPTimeout.
	Timeout string `toml:"timeout" json:"timeout,omitempty"`
	// Workspace is set when the server comes from a workspace's
	// .kws/config.toml: a command from there runs only once the user has
	// approved it for that workspace.
	Workspace bool `toml:"-" json:"workspace,omitempty"`
}

// DefaultMCPTimeout bounds an MCP server's start and each of its calls when
// the server sets no timeout.
const DefaultMCPTimeout = 60 * time.Second

// CallTimeout returns the server's timeout, or DefaultMCPTimeout.
func (s MCPServer) CallTimeout() time.Duration {
	if d, err := time.ParseDuration(strings.TrimSpace(s.Timeout)); err == nil && d > 0 {
		return d
	}
	return DefaultMCPTimeout
}

// CommandLine is the server's command and arguments as one line, each
// word quoted when it needs to be: what a user approves.
func (s MCPServer) CommandLine() string {
	words := make([]string, 0, 1+len(s.Args)+len(s.Env))
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		words = append(words, shellQuote(k+"="+s.Env[k]))
	}
	return strings.Join(append(words, s.commandWords()...), " ")
}

// commandWords are the command and its arguments, quoted.
func (s MCPServer) commandWords() []string {
	words := []string{shellQuote(s.Command)}
	for _, a := range s.Args {
		words = append(words, shellQuote(a))
	}
	return words
}

// Shown is how kws names the server in its status, errors and logs: the
// command line with each env value left out (KEY=…), or the URL without
// its password and query values, since that is where a token goes (as
// Headers, never shown). A workspace command's approval shows CommandLine,
// all of it, since that is what the user approves.
func (s MCPServer) Shown() string {
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil {
			return "(an unreadable URL)"
		}
		q := u.Query()
		for k := range q {
			q[k] = []string{"…"}
		}
		u.RawQuery = q.Encode()
		return strings.ReplaceAll(u.Redacted(), "%E2%80%A6", "…")
	}
	words := make([]string, 0, 1+len(s.Args)+len(s.Env))
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		words = append(words, shellQuote(k)+"=…")
	}
	return strings.Join(append(words, s.commandWords()...), " ")
}

// shellQuote quotes w for a POSIX shell when it holds anything but plain
// characters.
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,%", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// validName is the form of a server name: it becomes part of tool names,
// which OpenAI limits to letters, digits, _ and -.
func validMCPName(name string) bool {
	if name == "" || len(name) > 32 || strings.Contains(name, "__") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// Validate reports a server table that cannot work: no command and no
// URL, or both, a bad name, URL, policy or timeout.
func (s MCPServer) Validate(name string) error {
	var bad []string
	if !validMCPName(name) {
		bad = append(bad, "the name must be 1 to 32 letters, digits, _ or - (and no __)")
	}
	switch {
	case s.Command == "" && s.URL == "":
		bad = append(bad, `set command (a stdio server) or url (streamable HTTP)`)
	case s.Command != "" && s.URL != "":
		bad = append(bad, "set command or url, not both")
	case s.URL != "":
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad = append(bad, fmt.Sprintf("url %q is not an http(s) URL", s.URL))
		}
		if len(s.Args) > 0 || len(s.Env) > 0 {
			bad = append(bad, "args and env are for a command, not a url")
		}
	default:
		if len(s.Headers) > 0 {
			bad = append(bad, "headers are for a url, not a command")
		}
	}
	if !validPolicy(s.Approve, true) {
		bad = append(bad, fmt.Sprintf("approve = %q: want ask, allow or deny", s.Approve))
	}
	for _, tool := range slices.Sorted(maps.Keys(s.Tools)) {
		if !validPolicy(s.Tools[tool], false) {
			bad = append(bad, fmt.Sprintf("tools.%s = %q: want ask, allow or deny", tool, s.Tools[tool]))
		}
	}
	if t := strings.TrimSpace(s.Timeout); t != "" {
		if d, err := time.ParseDuration(t); err != nil || d <= 0 {
			bad = append(bad, fmt.Sprintf("timeout = %q: want a duration such as \"60s\"", s.Timeout))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("[mcp.servers.%s]: %s", name, strings.Join(bad, "; "))
}

func validPolicy(p string, emptyOK bool) bool {
	switch strings.TrimSpace(p) {
	case PermissionAsk, PermissionAllow, PermissionDeny:
		return true
	case "":
		return emptyOK
	}
	return false
}

// mergeMCP layers a file's servers over c's. A workspace file (user
// false) may add servers but not change one the user's file defines (it
// could point the user's headers at its own URL), and may not allow a tool
// to run without asking. What it may not set is ignored with a warning in
// c.Warnings rather than refused: a repository that happens to use a
// server name of the user's would otherwise take every agent offline for
// that user alone.
func (c *Config) mergeMCP(path string, f MCP, user bool) error {
	names := slices.Sorted(maps.Keys(f.Servers))
	for _, name := range names {
		if err := f.Servers[name].Validate(name); err != nil {
			return fmt.Errorf("config: %s: %w", path, err)
		}
	}
	var ignored []string
	for _, name := range names {
		s := f.Servers[name]
		if !user {
			if prev, ok := c.MCP.Servers[name]; ok && !prev.Workspace {
				ignored = append(ignored, fmt.Sprintf("mcp.servers.%s (your own config defines it, and yours stays in force)", name))
				continue
			}
			s, ignored = dropMCPAllows(name, s, ignored)
		}
		s.Workspace = !user
		if c.MCP.Servers == nil {
			c.MCP.Servers = map[string]MCPServer{}
		}
		c.MCP.Servers[name] = s
	}
	if len(ignored) > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("config: %s: ignored %s: only your own ~/.config/kws/config.toml may set them (a repository must not redirect your MCP servers or let their tools run without asking)",
			path, strings.Join(ignored, ", ")))
	}
	return nil
}

// dropMCPAllows returns a workspace's server s without the "allow"
// policies a workspace may not set, adding each to ignored. A dropped
// tool policy falls back to the server's approve, a dropped approve to
// ask.
func dropMCPAllows(name string, s MCPServer, ignored []string) (MCPServer, []string) {
	if strings.TrimSpace(s.Approve) == PermissionAllow {
		ignored = append(ignored, fmt.Sprintf("mcp.servers.%s.approve = \"allow\"", name))
		s.Approve = ""
	}
	var tools map[string]string
	for _, tool := range slices.Sorted(maps.Keys(s.Tools)) {
		if strings.TrimSpace(s.Tools[tool]) == PermissionAllow {
			// A tool's name is any TOML key: quoted, it cannot
			// carry control characters into the warning.
			ignored = append(ignored, fmt.Sprintf("mcp.servers.%s.tools.%s = \"allow\"", name, strconv.Quote(tool)))
			continue
		}
		if tools == nil {
			tools = map[string]string{}
		}
		tools[tool] = s.Tools[tool]
	}
	s.Tools = tools
	return s, ignored
}
