package mcp

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/internal/trust"
)

// Trust is the record of the workspace MCP servers the user approved: a
// workspace's .kws/config.toml may add a server, but kws runs or connects
// to it only once the user has approved exactly that for that workspace:
// the command, its arguments and env, and the contents of the program and
// of the script files its arguments name when they live in the workspace
// (which agents write); or the URL and headers of an HTTP server. It keeps
// its approvals in the data dir's trust record (package trust), beside the
// workspace hooks' approvals; any change needs a new approval.
type Trust struct {
	rec *trust.Record
}

// OpenTrust returns the trust record kept in dataDir.
func OpenTrust(dataDir string) *Trust {
	return &Trust{rec: trust.Open(dataDir)}
}

// commandHash identifies what server s, started in workspace, runs or
// reaches: its command, arguments and env, with the contents of the
// program and argument files in the workspace; or its URL and headers.
func commandHash(workspace string, s config.MCPServer) string {
	sorted := func(m map[string]string) [][2]string {
		out := make([][2]string, 0, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, [2]string{k, m[k]})
		}
		return out
	}
	var files [][2]string
	if s.Command != "" {
		for _, f := range append([]string{trust.ProgramPath(workspace, s.Command)}, s.Args...) {
			if f == "" {
				continue
			}
			if !filepath.IsAbs(f) {
				f = filepath.Join(workspace, f)
			}
			if trust.Within(f, workspace) {
				files = append(files, [2]string{f, trust.FileHash(f)})
			}
		}
	}
	return trust.Hash(struct {
		Command, URL  string
		Args          []string
		Env, Headers  [][2]string
		Files         [][2]string
		ProgramOnPath string
	}{s.Command, s.URL, s.Args, sorted(s.Env), sorted(s.Headers), files, trust.ProgramPath(workspace, s.Command)})
}

// Trusted reports whether the user approved server s, as it is now, for
// workspace; changed says an earlier form of it was approved.
func (t *Trust) Trusted(workspace, server string, s config.MCPServer) (ok, changed bool, err error) {
	if t == nil {
		return false, false, nil
	}
	return t.rec.Trusted(workspace, server, commandHash(workspace, s))
}

// Approve records the user's approval of server's command for workspace,
// replacing an approval of an earlier command of the same server.
func (t *Trust) Approve(workspace, server string, s config.MCPServer) error {
	return t.rec.Approve(workspace, server, commandHash(workspace, s), Describe(s))
}

// NeedsTrust reports whether server s comes from a workspace config, so
// it needs the user's approval: a command it runs, or a URL every run
// would send requests to.
func NeedsTrust(s config.MCPServer) bool { return s.Workspace && (s.Command != "" || s.URL != "") }

// Describe is what the user approves of server s: its command line, or
// its URL (without query values).
func Describe(s config.MCPServer) string {
	if s.Command == "" {
		return "the HTTP server " + s.Shown()
	}
	return "the command " + s.CommandLine()
}

// trusted decides whether a workspace server may run or be reached:
// approved before as it is now, or approved now by Ask (and recorded).
func (m *Manager) trusted(name string, s config.MCPServer) error {
	ok, changed, err := m.opts.Trust.Trusted(m.opts.Workspace, name, s)
	if err != nil {
		return fmt.Errorf("reading MCP approvals: %v", err)
	}
	if ok {
		return nil
	}
	if m.opts.Ask != nil && m.opts.Trust != nil && m.opts.Ask(name, Describe(s)) {
		return m.opts.Trust.Approve(m.opts.Workspace, name, s)
	}
	what := "which you have not approved for this workspace"
	if changed {
		what = "which changed since you approved it (its command, arguments, env, or the program or script files in the workspace it runs)"
	}
	return fmt.Errorf("the workspace's .kws/config.toml runs %s, %s; to approve it, run kws mcp trust %s in %s", Describe(s), what, name, m.opts.Workspace)
}
