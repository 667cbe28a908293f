package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/kwsdev/kws/config"
)

// Trust is the record of the workspace MCP commands the user approved:
// a workspace's .kws/config.toml may add a server that runs a command, but
// kws runs it only once the user has approved that exact command (with its
// arguments and env) for that workspace. It lives in one JSON file in the
// data dir; a changed command needs a new approval.
type Trust struct {
	path string
	mu   sync.Mutex
}

// trustEntry is one approval.
type trustEntry struct {
	Workspace string    `json:"workspace"`
	Server    string    `json:"server"`
	Hash      string    `json:"hash"`
	Command   string    `json:"command"`
	Approved  time.Time `json:"approved"`
}

// OpenTrust returns the trust record kept in dataDir.
func OpenTrust(dataDir string) *Trust {
	return &Trust{path: filepath.Join(dataDir, "mcp-trust.json")}
}

// commandHash identifies a server's command, arguments and env.
func commandHash(s config.MCPServer) string {
	env := make([][2]string, 0, len(s.Env))
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		env = append(env, [2]string{k, s.Env[k]})
	}
	b, _ := json.Marshal(struct {
		Command string
		Args    []string
		Env     [][2]string
	}{s.Command, s.Args, env})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (t *Trust) load() ([]trustEntry, error) {
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []trustEntry
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", t.path, err)
	}
	return out, nil
}

// Trusted reports whether the user approved server's command for
// workspace.
func (t *Trust) Trusted(workspace, server string, s config.MCPServer) (bool, error) {
	if t == nil {
		return false, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	entries, err := t.load()
	if err != nil {
		return false, err
	}
	h := commandHash(s)
	for _, e := range entries {
		if e.Workspace == workspace && e.Server == server && e.Hash == h {
			return true, nil
		}
	}
	return false, nil
}

// Approve records the user's approval of server's command for workspace,
// replacing an approval of an earlier command of the same server.
func (t *Trust) Approve(workspace, server string, s config.MCPServer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	entries, err := t.load()
	if err != nil {
		return err
	}
	entries = slices.DeleteFunc(entries, func(e trustEntry) bool { return e.Workspace == workspace && e.Server == server })
	entries = append(entries, trustEntry{Workspace: workspace, Server: server, Hash: commandHash(s), Command: s.CommandLine(), Approved: time.Now().UTC()})
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, t.path)
}

// NeedsTrust reports whether server s comes from a workspace config and
// runs a command, so it needs the user's approval.
func NeedsTrust(s config.MCPServer) bool { return s.Workspace && s.Command != "" }

// trusted decides whether a workspace server's command may run: approved
// before, or approved now by Ask (and recorded).
func (m *Manager) trusted(name string, s config.MCPServer) error {
	ok, err := m.opts.Trust.Trusted(m.opts.Workspace, name, s)
	if err != nil {
		return fmt.Errorf("reading MCP approvals: %v", err)
	}
	if ok {
		return nil
	}
	if m.opts.Ask != nil && m.opts.Trust != nil && m.opts.Ask(name, s.CommandLine()) {
		return m.opts.Trust.Approve(m.opts.Workspace, name, s)
	}
	return fmt.Errorf("the workspace's .kws/config.toml runs the command %s, which you have not approved for this workspace; to approve it, run kws mcp trust %s in %s", s.CommandLine(), name, m.opts.Workspace)
}
