package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/sandbox"
)

// ClientOptions configure a Manager.
type ClientOptions struct {
	// Servers are the configured servers ([mcp.servers.NAME]).
	Servers map[string]config.MCPServer
	// Workspace is where stdio servers run, and what trust records are
	// keyed by.
	Workspace string
	// LogDir receives each stdio server's stderr as mcp-NAME.log.
	LogDir string
	// Trust holds the user's approvals of workspace servers' commands;
	// nil refuses every command a workspace config adds.
	Trust *Trust
	// Ask, when set, asks the user to approve a workspace server's command
	// that Trust does not hold yet (kws run on a terminal); a yes is
	// recorded in Trust.
	Ask func(server, commandLine string) bool
	// Sandbox confines the commands a workspace's config adds, as agent
	// commands are confined (with the workspace's git metadata
	// read-only); nil runs them unconfined, approved all the same.
	Sandbox *sandbox.Policy
	// HideEnv names variables a server's process must not inherit (the
	// API key's); KWS_API_KEY and OPENAI_API_KEY are always hidden.
	HideEnv []string
	// Log receives the servers' state changes and skipped tools.
	Log *slog.Logger
}

// Manager runs the configured MCP servers and offers their tools. It is
// safe for concurrent use.
type Manager struct {
	opts ClientOptions
	// ctx bounds every start and restart; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	conns  []*conn // sorted by name
	wg     sync.WaitGroup
}

// StartClient starts every configured server in the background. Groups,
// Permissions and Prompt answer at once with what is connected now;
// Started, Status and Problems wait until each server has connected or
// failed once.
func StartClient(opts ClientOptions) *Manager {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{opts: opts}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	for _, name := range slices.Sorted(maps.Keys(opts.Servers)) {
		c := newConn(m, name, opts.Servers[name])
		m.conns = append(m.conns, c)
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			c.start()
		}()
	}
	return m
}

// Started waits until every server's first start has ended (kws run
// waits, so that its one task sees every tool).
func (m *Manager) Started() {
	if m != nil {
		m.wg.Wait()
	}
}

// Groups returns each connected server's tools as one group named
// mcp__SERVER, as they are now: a server still starting has none yet.
func (m *Manager) Groups() []tools.Group {
	if m == nil {
		return nil
	}
	var out []tools.Group
	for _, c := range m.conns {
		ts := c.agentTools()
		if len(ts) == 0 {
			continue
		}
		out = append(out, tools.Group{Name: "mcp__" + c.name, Label: "MCP server " + c.name, Tools: ts})
	}
	return out
}

// Missing says why the agent tool name is not offered when it names a
// tool of a configured server that is not connected: the server's state
// and why. It is "" for a connected server's name (a tool it lacks gets
// the agent's list of tools) and for names of no configured server.
func (m *Manager) Missing(name string) string {
	if m == nil {
		return ""
	}
	var match *conn
	for _, c := range m.conns {
		// The longest server name wins: "mcp__a__b__x" may be server
		// a__b's tool x.
		if strings.HasPrefix(name, toolName(c.name, "")) && (match == nil || len(c.name) > len(match.name)) {
			match = c
		}
	}
	if match == nil {
		return ""
	}
	s := match.status()
	if s.State == StateConnected {
		return ""
	}
	why := fmt.Sprintf("MCP server %s is not connected (%s)", s.Name, s.State)
	if s.Error != "" {
		why += ": " + s.Error
	}
	return why
}

// Permissions returns the configured policies ("ask", "allow" or "deny")
// in the form of the permissions table: each server's approve as
// "mcp__SERVER__*", each tool's own as its agent tool name.
func (m *Manager) Permissions() map[string]string {
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for _, c := range m.conns {
		if p := strings.TrimSpace(c.cfg.Approve); p != "" {
			out[toolName(c.name, "*")] = p
		}
		for tool, p := range c.cfg.Tools {
			out[toolName(c.name, tool)] = strings.TrimSpace(p)
		}
	}
	return out
}

// Prompt is the system prompt section that tells the model which MCP
// tools exist, so that it can ask for them with tool_expand on a turn
// where they are not offered; "" while none is connected.
func (m *Manager) Prompt() string {
	groups := m.Groups()
	if len(groups) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# MCP tools\n\nThese tools come from MCP servers the user configured. When one is not among your tools, call tool_expand with its name (or with mcp__SERVER for all of a server's tools).\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "- %s:", g.Label)
		for _, t := range g.Tools {
			b.WriteString(" " + t.Name())
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// State is a server's state.
type State string

// Server states.
const (
	// StateStarting: the server is being started for the first time.
	StateStarting State = "starting"
	// StateConnected: the server answered initialize and listed its tools.
	StateConnected State = "connected"
	// StateRestarting: the server crashed and is being started again.
	StateRestarting State = "restarting"
	// StateFailed: the server could not be started (or restarted); Error
	// says why.
	StateFailed State = "failed"
	// StateRefused: a workspace config added the server's command and the
	// user has not approved it for this workspace.
	StateRefused State = "refused"
)

// ServerStatus is one server as kws mcp ls and the palette show it.
type ServerStatus struct {
	Name  string
	State State
	// Error says why the server failed, was refused, or last crashed.
	Error string
	// Transport is the command line (stdio) or the URL, as
	// config.MCPServer.Shown shows them: without env values or tokens.
	Transport string
	// Workspace is set for a server from the workspace's config.
	Workspace bool
	// Tools are the agent tool names; Skipped the server's tools kws does
	// not offer, each with why.
	Tools   []string
	Skipped []string
	// Restarts counts the restarts after crashes.
	Restarts int
	// PID is the stdio server's process id while it runs.
	PID int
	// Log is the file holding the server's stderr.
	Log string
}

// Status returns every server's state, after each first start has ended.
func (m *Manager) Status() []ServerStatus {
	if m == nil {
		return nil
	}
	m.Started()
	out := make([]ServerStatus, len(m.conns))
	for i, c := range m.conns {
		out[i] = c.status()
	}
	return out
}

// Close stops every server.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.cancel()
	m.Started()
	var wg sync.WaitGroup
	for _, c := range m.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
}

// formatStatus renders statuses as kws mcp ls prints them: one line per
// server, then its tools, skipped tools and log.
func formatStatus(list []ServerStatus) string {
	if len(list) == 0 {
		return "no MCP servers configured: add [mcp.servers.NAME] with command (and args, env) or url to ~/.config/kws/config.toml\n"
	}
	var b strings.Builder
	for _, s := range list {
		from := ""
		if s.Workspace {
			from = " (workspace config)"
		}
		fmt.Fprintf(&b, "%s%s: %s — %s\n", s.Name, from, s.State, s.Transport)
		if s.Error != "" {
			fmt.Fprintf(&b, "  why: %s\n", s.Error)
		}
		if s.Restarts > 0 {
			fmt.Fprintf(&b, "  restarts: %d\n", s.Restarts)
		}
		if len(s.Tools) > 0 {
			fmt.Fprintf(&b, "  tools: %s\n", strings.Join(s.Tools, ", "))
		}
		for _, sk := range s.Skipped {
			fmt.Fprintf(&b, "  skipped: %s\n", sk)
		}
		if s.Log != "" {
			if _, err := os.Stat(s.Log); err == nil {
				fmt.Fprintf(&b, "  log: %s\n", s.Log)
			}
		}
	}
	return b.String()
}

// logPath is the stderr log of server name.
func (m *Manager) logPath(name string) string {
	if m.opts.LogDir == "" {
		return ""
	}
	return filepath.Join(m.opts.LogDir, "mcp-"+name+".log")
}

// toolName is the agent's name for an MCP server's tool.
func toolName(server, tool string) string { return "mcp__" + server + "__" + tool }

// LogDir is where kws keeps the MCP servers' stderr logs under dataDir.
func LogDir(dataDir string) string { return filepath.Join(dataDir, "logs") }

// StatusText is every server's state as kws mcp ls prints it: one line
// per server, then its tools, skipped tools and log.
func (m *Manager) StatusText() string { return formatStatus(m.Status()) }

// Summary is every server's state, one line each, without waiting for
// servers still starting: the workstation's palette command mcp shows
// it. A failure's root cause (the innermost error, as "connection
// refused") comes first, then the whole error that wraps it.
func (m *Manager) Summary() string {
	if m == nil || len(m.conns) == 0 {
		return "MCP: no servers configured ([mcp.servers.NAME] in ~/.config/kws/config.toml)"
	}
	var b strings.Builder
	for _, c := range m.conns {
		s := c.status()
		switch {
		case s.State == StateConnected:
			fmt.Fprintf(&b, "%s: connected, %d tools\n", s.Name, len(s.Tools))
		case s.Error != "":
			fmt.Fprintf(&b, "%s: %s: %s\n", s.Name, s.State, rootCauseFirst(s.Error))
		default:
			fmt.Fprintf(&b, "%s: %s\n", s.Name, s.State)
		}
	}
	b.WriteString("(kws mcp ls lists the tools)")
	return b.String()
}

// rootCauseFirst puts the last part of a wrapped error ("a: b: connection
// refused") before the whole: the SDK's and Go's wrapping come first and
// push the cause out of sight on a narrow screen.
func rootCauseFirst(why string) string {
	i := strings.LastIndex(why, ": ")
	if i < 0 {
		return why
	}
	return why[i+2:] + " — " + why
}

// Failed is how many servers are failed or refused now and how many are
// configured, without waiting for servers still starting: the
// workstation's status bar shows it.
func (m *Manager) Failed() (failed, total int) {
	if m == nil {
		return 0, 0
	}
	for _, c := range m.conns {
		if s := c.status(); s.State == StateFailed || s.State == StateRefused {
			failed++
		}
	}
	return failed, len(m.conns)
}

// Problems are the servers that did not connect and the tools skipped,
// one line each with why, after every server's first start has ended.
func (m *Manager) Problems() []string {
	var out []string
	for _, s := range m.Status() {
		if s.State != StateConnected {
			out = append(out, fmt.Sprintf("MCP server %s %s: %s", s.Name, s.State, s.Error))
		}
		for _, sk := range s.Skipped {
			out = append(out, fmt.Sprintf("MCP server %s: tool skipped: %s", s.Name, sk))
		}
	}
	return out
}
