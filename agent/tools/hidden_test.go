package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileToolsRefuseKwsOwnData runs the file tools in a workspace that
// holds kws's config (with an API key) and data dir, as --workspace ~
// does: none reads, lists, greps, ranks or writes them, through a path or
// a symbolic link, while the rest of the workspace stays open.
func TestFileToolsRefuseKwsOwnData(t *testing.T) {
	env := newEnv(t, map[string]string{
		".config/kws/config.toml":           "api_key = \"sk-secret-key-0123456789\"\n",
		".local/share/kws/vault.db":         "vault bytes api_key\n",
		".local/share/kws/sessions/a.jsonl": "api_key transcript\n",
		"notes.txt":                         "api_key is configured elsewhere\n",
	})
	env.Hidden = []string{filepath.Join(env.Workspace, ".config/kws"), filepath.Join(env.Workspace, ".local/share/kws")}
	if err := os.Symlink(filepath.Join(env.Workspace, ".config/kws/config.toml"), filepath.Join(env.Workspace, "cfg-link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": ".config/kws/config.toml"}},
		{"read_file", map[string]any{"path": filepath.Join(env.Workspace, ".local/share/kws/vault.db")}},
		{"read_file", map[string]any{"path": "cfg-link"}},
		{"list_files", map[string]any{"path": ".local/share/kws"}},
		{"grep", map[string]any{"pattern": "api_key", "path": ".config/kws"}},
		{"write_file", map[string]any{"path": ".config/kws/config.toml", "content": "base_url = \"http://evil\"\n"}},
		{"edit_file", map[string]any{"path": ".config/kws/config.toml", "old_string": "sk-", "new_string": "x-"}},
	} {
		res := call(t, env, c.tool, c.args)
		if !res.IsError || strings.Contains(res.Text, "sk-secret") {
			t.Errorf("%s %v: %q, want a refusal", c.tool, c.args, res.Text)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"grep", map[string]any{"pattern": "api_key"}},
		{"list_files", map[string]any{"path": "."}},
		{"context_for_task", map[string]any{"task": "where is the api_key configured"}},
	} {
		res := call(t, env, c.tool, c.args)
		if res.IsError || strings.Contains(res.Text, "sk-secret") || strings.Contains(res.Text, "vault.db") ||
			strings.Contains(res.Text, "config.toml") || strings.Contains(res.Text, "a.jsonl") || !strings.Contains(res.Text, "notes.txt") {
			t.Errorf("%s %v over the workspace:\n%s", c.tool, c.args, res.Text)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(env.Workspace, ".config/kws/config.toml")); !strings.Contains(string(data), "sk-secret") {
		t.Error("the config was changed")
	}
}
