package tools

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kwsdev/kws/sandbox"
)

// TestShellGitConfigCannotExecute runs git through the shell tool in a
// workspace whose .git/config (or hooks) names programs: none may run.
// The marker file lies in the workspace, so only the git configuration,
// not the sandbox, stops it.
func TestShellGitConfigCannotExecute(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	hook := "#!/bin/sh\ntouch pwned\n"
	evil := map[string]string{"evil.sh": hook}
	// An HTTP remote that wants a password makes git ask the
	// credential helpers.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	for _, tt := range []struct {
		name    string
		config  string
		files   map[string]string
		command string
	}{
		{"core.fsmonitor", "[core]\n\tfsmonitor = touch pwned\n", nil, "git status"},
		{"core.hooksPath", "[core]\n\thooksPath = evil-hooks\n", map[string]string{"evil-hooks/pre-commit": hook}, "git commit -q --allow-empty -m x"},
		{"default hooks dir", "", map[string]string{".git/hooks/pre-commit": hook}, "git commit -q --allow-empty -m x"},
		{"core.editor", "[core]\n\teditor = touch pwned\n", nil, "git commit -q --allow-empty"},
		{"sequence.editor", "[sequence]\n\teditor = touch pwned\n", nil, "git rebase -q -i --root"},
		{"gpg.program", "[gpg]\n\tprogram = WS/evil.sh\n[user]\n\tsigningKey = x\n", evil, "git commit -q -S --allow-empty -m x"},
		{"core.sshCommand", "[core]\n\tsshCommand = WS/evil.sh\n[ssh]\n\tvariant = ssh\n", evil, "git ls-remote ssh://127.0.0.1:1/x"},
		{"credential.helper", "[credential]\n\thelper = !touch pwned\n", nil, "git ls-remote " + srv.URL + "/x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, nil)
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = env.Workspace
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			git("config", "user.name", "t")
			git("config", "user.email", "t@example.com")
			git("commit", "-q", "--allow-empty", "-m", "first")
			writeFiles(t, env.Workspace, tt.files)
			for _, f := range []string{"evil-hooks/pre-commit", ".git/hooks/pre-commit", "evil.sh"} {
				os.Chmod(filepath.Join(env.Workspace, f), 0o755)
			}
			f, err := os.OpenFile(filepath.Join(env.Workspace, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(strings.ReplaceAll(tt.config, "WS/", env.Workspace+"/"))
			f.Close()
			res := call(t, env, "shell", mustJSON(t, map[string]any{"command": tt.command, "timeout_sec": 20}))
			if _, err := os.Stat(filepath.Join(env.Workspace, "pwned")); err == nil {
				t.Fatalf("%s ran the repository's program:\n%s", tt.command, res.Text)
			}
		})
	}
}

func TestShellSandboxed(t *testing.T) {
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	env := newEnv(t, map[string]string{"in.txt": "inside\n"})
	data, outside := t.TempDir(), t.TempDir()
	writeFiles(t, data, map[string]string{"vault.db": "secret-bytes\n"})
	env.Sandbox = &sandbox.Policy{Hidden: []string{data}, Network: true}
	res := call(t, env, "shell", mustJSON(t, map[string]string{"command": `echo "tmp=$TMPDIR"; cat in.txt; echo w > out.txt; ` +
		`echo t > "$TMPDIR/t" && echo tmp-ok; cat ` + data + `/vault.db; echo x > ` + outside + `/y`}))
	checkResult(t, res, false, "inside\n", "tmp-ok\n", "Permission denied")
	if strings.Contains(res.Text, "secret-bytes") {
		t.Errorf("read a hidden file:\n%s", res.Text)
	}
	if got := readFile(t, env, "out.txt"); got != "w\n" {
		t.Errorf("out.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "y")); err == nil {
		t.Errorf("wrote outside the workspace:\n%s", res.Text)
	}
	m := regexp.MustCompile(`tmp=(\S+)`).FindStringSubmatch(res.Text)
	if m == nil || strings.HasPrefix(m[1], env.Workspace) {
		t.Fatalf("no private TMPDIR:\n%s", res.Text)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("temp dir %s left behind: %v", m[1], err)
	}
}
