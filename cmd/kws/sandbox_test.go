package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/sandbox"
)

// toolAnswer returns what the model was told about its first tool call.
func toolAnswer(t *testing.T, srv *providertest.Server) string {
	t.Helper()
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				return m.Content
			}
		}
	}
	t.Fatal("no tool result reached the model")
	return ""
}

// TestRunSandboxesShell runs a shell command through kws run --yes that
// reads kws's data dir and writes outside the workspace: both fail, while
// writing in the workspace works.
func TestRunSandboxesShell(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	runEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	data, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "probe"), []byte("data-dir-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	command := "echo ok > mine; cat " + data + "/probe; echo x > " + outside + "/theirs; cat mine"
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: string(mustArgs(t, command))}),
		providertest.TextStep("done"))
	out, err := run(t, data, nil, "run", "--yes", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "try it")
	if err != nil || strings.Contains(out, "sandbox unavailable") {
		t.Fatalf("run: %q %v", out, err)
	}
	answer := toolAnswer(t, srv)
	if strings.Contains(answer, "data-dir-secret") || !strings.Contains(answer, "Permission denied") || !strings.Contains(answer, "ok") {
		t.Fatalf("tool result: %s", answer)
	}
	if _, err := os.Stat(filepath.Join(outside, "theirs")); err == nil {
		t.Fatal("the command wrote outside the workspace")
	}
}

// TestRunUnsandboxedAsksForEveryCommand turns the sandbox off: kws run
// says so on stderr and a shell_allow prefix no longer runs unasked (run
// without --yes denies what would ask).
func TestRunUnsandboxedAsksForEveryCommand(t *testing.T) {
	runEnv(t)
	t.Setenv(sandbox.DisableEnv, "off")
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kws")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("shell_allow = [\"echo\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, ws := t.TempDir(), t.TempDir()
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: string(mustArgs(t, "echo probe"))}),
		providertest.TextStep("done"))
	out, err := run(t, data, nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "try it")
	if err != nil || !strings.Contains(out, "kws: sandbox unavailable (turned off by KWS_SANDBOX=off): every shell command asks for approval") {
		t.Fatalf("run: %q %v", out, err)
	}
	if answer := toolAnswer(t, srv); strings.Contains(answer, "STDOUT") {
		t.Fatalf("an allow-listed command ran unconfined without approval:\n%s", answer)
	}
}

// mustArgs encodes the shell tool's arguments for command.
func mustArgs(t *testing.T, command string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
