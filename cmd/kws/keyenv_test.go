package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/sandbox"
)

// TestShellCannotReadTheAPIKey runs kws run as its own process with the
// key in its environment, as a user starts it, and lets the model's shell
// command read every environment it can reach: its own, its parent's
// (kws) and kws's memory map. The key must be in none of them, with the
// sandbox on and off, while the model still received the key as its
// bearer token.
func TestShellCannotReadTheAPIKey(t *testing.T) {
	for _, sbx := range []string{"on", "off", "off, as a normal user"} {
		t.Run("sandbox "+sbx, func(t *testing.T) {
			runEnv(t)
			asUser := strings.HasSuffix(sbx, "normal user")
			if asUser && os.Getuid() != 0 {
				t.Skip("only root can start kws as another user")
			}
			if strings.HasPrefix(sbx, "off") {
				t.Setenv(sandbox.DisableEnv, "off")
			} else if _, err := sandbox.Available(); err != nil {
				t.Skipf("sandbox unavailable: %v", err)
			}
			data, ws := t.TempDir(), t.TempDir()
			command := `env; echo "parent=$PPID"; tr '\0' '\n' < /proc/$PPID/environ; echo "status=$?"; ` +
				`grep -a -c "` + testKey + `" /proc/$PPID/mem 2>&1 | head -c 200`
			srv := providertest.New(t,
				providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: string(mustArgs(t, command))}),
				providertest.TextStep("done"))
			args, _ := json.Marshal([]string{"--data-dir", data, "run", "--yes", "--base-url", srv.URL(), "--model", "m",
				"--workspace", ws, "read the environment"})
			child := exec.Command(os.Args[0], "-test.run=^$")
			child.Env = append(os.Environ(), "KWS_TEST_ARGS="+string(args))
			if asUser {
				child = asNobody(t, child, data, ws, os.Getenv("XDG_CONFIG_HOME"))
			}
			out, err := child.CombinedOutput()
			if err != nil {
				t.Fatalf("kws run: %v\n%s", err, out)
			}
			answer := toolAnswer(t, srv)
			if strings.Contains(answer, testKey) || strings.Contains(string(out), testKey) {
				t.Fatalf("the key reached the command:\n%s", answer)
			}
			if !strings.Contains(answer, "PATH=") || !strings.Contains(answer, "parent=") {
				t.Fatalf("the command did not run as expected:\n%s", answer)
			}
			if asUser && !strings.Contains(answer, "Permission denied") {
				// kws is non-dumpable: another process of its user may
				// not open its /proc files at all.
				t.Fatalf("a normal user's command could read kws's /proc/PID/environ:\n%s", answer)
			}
			if !srv.Requests()[0].Bearer {
				t.Fatal("the model got no key")
			}
		})
	}
}

// asNobody makes cmd run as the user nobody: a copy of the test binary
// nobody may run, and dirs it may write.
func asNobody(t *testing.T, cmd *exec.Cmd, dirs ...string) *exec.Cmd {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kws.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, d := range append(dirs, filepath.Dir(bin), home) {
		for p := d; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
			if err := os.Chmod(p, 0o777); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := exec.Command(bin, cmd.Args[1:]...)
	out.Env = append(cmd.Env, "HOME="+home, "XDG_CACHE_HOME="+home, "GOCACHE="+home)
	out.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return out
}

// TestErrorLineIsInert: an error that quotes hostile text (a server's
// body, a file name) prints without its escape sequences.
func TestErrorLineIsInert(t *testing.T) {
	got := errorLine(errors.New("open \x1b]0;owned\x07\x1b[2Jfile: \x1b]52;c;cGF5bG9hZA==\x07denied"))
	if strings.ContainsAny(got, "\x1b\x07") || got != "kws: open file: denied" {
		t.Fatalf("errorLine = %q", got)
	}
}
