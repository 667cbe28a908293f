package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/internal/proctest"
	"github.com/kwsdev/kws/sandbox"
	"github.com/kwsdev/kws/vault"
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

// toolAnswers returns what the model was told about each of its tool
// calls, by call id, from the requests it received.
func toolAnswers(srv *providertest.Server) map[string]string {
	out := map[string]string{}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				out[m.ToolCallID] = m.Content
			}
		}
	}
	return out
}

// TestRunShellNetworkIsAPermission checks, in what the model receives,
// that a shell command reaches a service on the host's loopback only when
// it asks for the network and the user's own config grants it, that a
// workspace's config cannot grant it, and that nothing a command leaves
// running outlives kws run.
func TestRunShellNetworkIsAPermission(t *testing.T) {
	if !sandbox.Jailed() {
		t.Skip("commands do not run in namespaces here")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("host-service-secret\n"))
			c.Close()
		}
	}()
	fetch := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3`, ln.Addr().(*net.TCPAddr).Port)
	marker := fmt.Sprintf("kws-run-leftover-%d", os.Getpid())
	plain, _ := json.Marshal(map[string]any{"command": fetch + `; (exec -a ` + marker + ` sleep 400 &); echo left`})
	withNet, _ := json.Marshal(map[string]any{"command": fetch, "network": true})

	for _, c := range []struct {
		name, user, workspace string
		netReaches            bool
	}{
		{"not granted", `[permissions]
shell = "allow"
`, "", false},
		{"granted by the user", `[permissions]
shell = "allow"
"shell.network" = "allow"
`, "", true},
		{"granted by the workspace", `[permissions]
shell = "allow"
`, `[permissions]
"shell.network" = "allow"
`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			runEnv(t)
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kws")
			os.MkdirAll(cfgDir, 0o700)
			if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(c.user), 0o600); err != nil {
				t.Fatal(err)
			}
			data, ws := t.TempDir(), t.TempDir()
			if c.workspace != "" {
				os.MkdirAll(filepath.Join(ws, ".kws"), 0o700)
				if err := os.WriteFile(filepath.Join(ws, ".kws", "config.toml"), []byte(c.workspace), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			srv := providertest.New(t,
				providertest.ToolStep(provider.ToolCall{ID: "plain", Name: "shell", Arguments: string(plain)}),
				providertest.ToolStep(provider.ToolCall{ID: "net", Name: "shell", Arguments: string(withNet)}),
				providertest.TextStep("done"))
			out, err := run(t, data, nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "fetch it")
			if err != nil {
				t.Fatalf("run: %q %v", out, err)
			}
			answers := toolAnswers(srv)
			if a := answers["plain"]; strings.Contains(a, "host-service-secret") || !strings.Contains(a, "left") {
				t.Errorf("a command without the network reached the host's loopback, or did not run:\n%s", a)
			}
			if a := answers["net"]; strings.Contains(a, "host-service-secret") != c.netReaches {
				t.Errorf("network command, want reached %v:\n%s", c.netReaches, a)
			}
			if left := proctest.Marked(marker); len(left) > 0 {
				t.Errorf("processes outlived the command: %v", left)
			}
		})
	}
}

// TestRunCommandsCannotReadOtherEnvirons: red-team trial 9 read the API
// key, as root, from /proc/PID/environ of processes around a forwarded kws
// run. An agent command sees only its own processes: another process's
// environment, holding the key, is out of its reach, root or not.
func TestRunCommandsCannotReadOtherEnvirons(t *testing.T) {
	if !sandbox.Jailed() {
		t.Skip("commands do not run in namespaces here")
	}
	runEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	holder := exec.Command("sleep", "600")
	holder.Env = append(os.Environ(), "KWS_API_KEY="+testKey)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	command := fmt.Sprintf(`cat /proc/%d/environ; grep -a -l KWS_API_KEY /proc/[0-9]*/environ; echo searched`, holder.Process.Pid)
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: string(mustArgs(t, command))}),
		providertest.TextStep("done"))
	data, ws := t.TempDir(), t.TempDir()
	if out, err := run(t, data, nil, "run", "--yes", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "look"); err != nil {
		t.Fatalf("run: %q %v", out, err)
	}
	answer := toolAnswer(t, srv)
	if strings.Contains(answer, testKey) || strings.Contains(answer, "/environ\n") || !strings.Contains(answer, "searched") {
		t.Fatalf("the command reached another process's environment:\n%s", answer)
	}
}

// TestRunBackgroundJobEndsWithTheRun: red-team trial 5 left processes
// running after kws run exited. A job the model starts in the background
// runs while the agent works, ends with the run, and its output is in the
// vault as a job block.
func TestRunBackgroundJobEndsWithTheRun(t *testing.T) {
	runEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	marker := fmt.Sprintf("kws-run-job-%d", os.Getpid())
	args, _ := json.Marshal(map[string]any{"background": true,
		"command": `(exec -a ` + marker + ` sleep 600) & until grep -q ` + marker + ` /proc/$!/cmdline 2>/dev/null; do :; done; echo job-ready-$((6*7)); echo > ready; wait`})
	data, ws := t.TempDir(), t.TempDir()
	// The model lists the jobs once the job has printed its line, so the
	// run cannot end before there is output to keep. (Should the job
	// never get there, the run goes on after a minute and the test fails
	// on what the vault lacks, rather than hanging.)
	signal, err := proctest.Signal(filepath.Join(ws, "ready"))
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		defer close(ready)
		_ = signal(time.Minute)
	}()
	listing := providertest.ToolStep(provider.ToolCall{ID: "ls", Name: "jobs", Arguments: `{"action":"list"}`})
	listing.Hold = ready
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "bg", Name: "shell", Arguments: string(args)}),
		listing,
		providertest.TextStep("done"))
	if out, err := run(t, data, nil, "run", "--yes", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "serve it"); err != nil {
		t.Fatalf("run: %q %v", out, err)
	}
	answers := toolAnswers(srv)
	if !strings.Contains(answers["bg"], "started background job 1") || !strings.Contains(answers["ls"], "job 1 (running") {
		t.Fatalf("the model was told: %q, then %q", answers["bg"], answers["ls"])
	}
	if left := proctest.Marked(marker); len(left) > 0 {
		t.Fatalf("the job outlived kws run: %v", left)
	}
	v, err := vault.OpenDir(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	found := false
	v.List(func(m vault.Meta) error {
		if m.Kind == "job" {
			b, _ := v.Get(m.ID)
			found = found || strings.Contains(string(b), "job-ready-42")
		}
		return nil
	})
	if !found {
		t.Fatal("the job's output is not in the vault")
	}
}
