package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestHooksLsAndTrust: kws hooks ls lists the hooks and says the
// workspace's are not approved; kws run says they did not run; once kws
// hooks trust approves them, they run, and kws run shows what they say.
func TestHooksLsAndTrust(t *testing.T) {
	runEnv(t)
	data, ws := t.TempDir(), t.TempDir()
	writeConfig(t, "[[hooks.SessionEnd]]\n[[hooks.SessionEnd.hooks]]\ntype = \"command\"\ncommand = \"true\"\n")
	wsCfg := `[[hooks.UserPromptSubmit]]
[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "touch ran; echo '{\"systemMessage\":\"\\u001b]0;pwned\\u0007the workspace hook ran\"}'"
timeout = 10
`
	if err := os.MkdirAll(filepath.Join(ws, ".kws"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".kws", "config.toml"), []byte(wsCfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, nil, "hooks", "ls", "--workspace", ws)
	if err != nil || !strings.Contains(out, "user      SessionEnd") || !strings.Contains(out, "workspace UserPromptSubmit") ||
		!strings.Contains(out, "(10s)") || !strings.Contains(out, "not approved and do not run") {
		t.Fatalf("ls: %v\n%s", err, out)
	}
	srv := providertest.New(t, providertest.TextStep("one"), providertest.TextStep("two"))
	runArgs := []string{"run", "--base-url", srv.URL(), "--model", "gpt-4o-mini", "--workspace", ws, "hello"}
	out, err = run(t, data, nil, runArgs...)
	if err != nil || !strings.Contains(out, "did not run") || !strings.Contains(out, "kws hooks trust") {
		t.Fatalf("run before trust: %v\n%s", err, out)
	}
	out, err = run(t, data, []byte("n\n"), "hooks", "trust", "--workspace", ws)
	if err != nil || !strings.Contains(out, "UserPromptSubmit: touch ran;") || !strings.Contains(out, "not approved") {
		t.Fatalf("trust declined: %v\n%s", err, out)
	}
	out, err = run(t, data, []byte("y\n"), "hooks", "trust", "--workspace", ws)
	if err != nil || !strings.HasSuffix(out, "approved\n") || strings.HasSuffix(out, "not approved\n") {
		t.Fatalf("trust: %v\n%s", err, out)
	}
	out, err = run(t, data, nil, runArgs...)
	if err != nil || !strings.Contains(out, "`: the workspace hook ran\n") || strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("run after trust: %v\n%q", err, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err != nil {
		t.Fatalf("the approved hook did not run: %v", err)
	}
}
