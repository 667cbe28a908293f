package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kwsdev/kws/config"
)

// Trust is the record of the workspace MCP servers the user approved: a
// workspace's .kws/config.toml may add a server, but kws runs or connects
// to it only once the user has approved exactly that for that workspace:
// the command, its arguments and env, and the contents of the program and
// of the script files its arguments name when they live in the workspace
// (which agents write); or the URL and headers of an HTTP server. It lives
// in one JSON file in the data dir; any change needs a new approval.
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
		for _, f := range append([]string{programPath(workspace, s.Command)}, s.Args...) {
			if f == "" {
				continue
			}
			if !filepath.IsAbs(f) {
				f = filepath.Join(workspace, f)
			}
			if within(f, workspace) {
				files = append(files, [2]string{f, fileHash(f)})
			}
		}
	}
	b, _ := json.Marshal(struct {
		Command, URL  string
		Args          []string
		Env, Headers  [][2]string
		Files         [][2]string
		ProgramOnPath string
	}{s.Command, s.URL, s.Args, sorted(s.Env), sorted(s.Headers), files, programPath(workspace, s.Command)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// programPath is the file command runs: relative to workspace when it
// names a path, else found on the PATH; "" when there is none.
func programPath(workspace, command string) string {
	if command == "" {
		return ""
	}
	if strings.Contains(command, "/") {
		if filepath.IsAbs(command) {
			return command
		}
		return filepath.Join(workspace, command)
	}
	p, err := exec.LookPath(command)
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}

// fileHash is the SHA-256 of the regular file at path (symlinks followed,
// so a link repointed elsewhere changes it), or what stands there instead.
func fileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "absent"
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "not a file"
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// within reports whether path (resolved through its symlinks) lies in dir.
func within(path, dir string) bool {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
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

// Trusted reports whether the user approved server s, as it is now, for
// workspace; changed says an earlier form of it was approved.
func (t *Trust) Trusted(workspace, server string, s config.MCPServer) (ok, changed bool, err error) {
	if t == nil {
		return false, false, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	entries, err := t.load()
	if err != nil {
		return false, false, err
	}
	h := commandHash(workspace, s)
	for _, e := range entries {
		if e.Workspace == workspace && e.Server == server {
			if e.Hash == h {
				return true, false, nil
			}
			changed = true
		}
	}
	return false, changed, nil
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
	entries = append(entries, trustEntry{Workspace: workspace, Server: server, Hash: commandHash(workspace, s), Command: Describe(s), Approved: time.Now().UTC()})
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
