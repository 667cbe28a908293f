package config

import (
	"strings"
	"testing"
	"time"
)

// TestHooksInClaudeCodesShape: the user's and the workspace's hooks both
// load, in that order, the workspace's marked; what kws does not run is
// ignored with a warning; what it cannot run as written is refused.
func TestHooksInClaudeCodesShape(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, home, "kws/config.toml", `
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "~/.claude/hooks/block-rm.sh"
timeout = 30

[[hooks.PostToolUse]]
matcher = "Edit|Write"
[[hooks.PostToolUse.hooks]]
type = "prompt"
command = "is this fine?"
[[hooks.PostToolUse.hooks]]
type = "command"
command = "gofmt -l ."

[[hooks.PermissionRequest]]
[[hooks.PermissionRequest.hooks]]
type = "command"
command = "true"
`)
	writeFile(t, ws, ".kws/config.toml", `
[[hooks.PreToolUse]]
matcher = "*"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "./.kws/audit.sh"
`)
	c, _, err := Load(ws, fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	pre := c.Hooks["PreToolUse"]
	if len(pre) != 2 || pre[0].Matcher != "Bash" || pre[0].Workspace || pre[0].Hooks[0].TimeoutOrDefault() != 30*time.Second ||
		!pre[1].Workspace || !pre[1].MatchAll() || pre[1].Hooks[0].TimeoutOrDefault() != DefaultHookTimeout {
		t.Fatalf("PreToolUse: %+v", pre)
	}
	if post := c.Hooks["PostToolUse"]; len(post) != 1 || len(post[0].Hooks) != 1 || post[0].Hooks[0].Command != "gofmt -l ." {
		t.Fatalf("PostToolUse: %+v", post)
	}
	if _, ok := c.Hooks["PermissionRequest"]; ok {
		t.Fatal("an event kws does not fire was kept")
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, `"PermissionRequest"`) || !strings.Contains(w, `of type "prompt"`) {
		t.Fatalf("warnings: %q", c.Warnings)
	}
	if ws := c.Hooks.Workspace(); len(ws) != 1 || len(ws["PreToolUse"]) != 1 || ws["PreToolUse"][0].Hooks[0].Command != "./.kws/audit.sh" {
		t.Fatalf("workspace hooks: %+v", ws)
	}
	re, err := pre[0].Regexp()
	if err != nil || !re.MatchString("Bash") || re.MatchString("BashOutput") {
		t.Fatalf("a matcher matches the whole name: %v", err)
	}

	for _, tt := range []struct{ toml, want string }{
		{"[[hooks.Stop]]\nmatcher = \"(\"\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"x\"\n", "not a regular expression"},
		{"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \" \"\n", "command is empty"},
		{"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"x\"\ntimeout = -1\n", "timeout = -1"},
		{"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"x\"\nasync = true\n", "unknown key hooks.Stop.hooks.async"},
	} {
		writeFile(t, ws, ".kws/config.toml", tt.toml)
		if _, _, err := Load(ws, fakeEnv(map[string]string{"XDG_CONFIG_HOME": t.TempDir()})); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.toml, err, tt.want)
		}
	}
}
