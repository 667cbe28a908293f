package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// setup is a kws binary with a private home, config and data dir, talking
// to a scripted model server; runs made from it see only those.
type setup struct {
	t    *testing.T
	root string
	kws  string
	dirs map[string]string
	env  map[string]string
	n    int
}

// newSetup builds kws and makes its directories under a temp root. When
// the test ends, the data dir's server (if one still runs) is killed.
func newSetup(t *testing.T, modelURL string) *setup {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make setup installs it on Debian)")
	}
	root := t.TempDir()
	s := &setup{t: t, root: root, kws: buildKws(t, root), dirs: map[string]string{}}
	for _, d := range []string{"data", "ws", "home", "config", "share"} {
		s.dirs[d] = filepath.Join(root, d)
		if err := os.Mkdir(s.dirs[d], 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s.env = map[string]string{
		"HOME": s.dirs["home"], "XDG_CONFIG_HOME": s.dirs["config"], "XDG_DATA_HOME": s.dirs["share"],
		"KWS_BASE_URL": modelURL, "KWS_MODEL": providertest.Model, "KWS_API_KEY": "e2e-key", "SHELL": "/bin/bash",
	}
	t.Cleanup(func() {
		// kws kill-server returns once the server has exited: the last
		// line of its log is there, and nothing it writes on the way out
		// races with removing the temp dir.
		if _, err := s.run("", "kill-server"); err != nil {
			return // no server ran, or it had stopped
		}
		logged, _ := os.ReadFile(filepath.Join(s.dirs["data"], "logs", "server.log"))
		lines := strings.Split(strings.TrimSpace(string(logged)), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, "server stopped") {
			t.Errorf("kws kill-server returned before the server stopped; its log ends with %q", last)
		}
	})
	return s
}

// run runs kws with the setup's data dir and environment, stdin given,
// and returns its combined output.
func (s *setup) run(stdin string, args ...string) (string, error) {
	cmd := exec.Command(s.kws, append([]string{"--data-dir", s.dirs["data"]}, args...)...)
	cmd.Env = withoutTMUX(os.Environ())
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// must is run that fails the test on an error.
func (s *setup) must(stdin string, args ...string) string {
	s.t.Helper()
	out, err := s.run(stdin, args...)
	if err != nil {
		s.t.Fatalf("kws %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// script writes a launcher that runs kws with args in the setup's
// environment and then records its exit status; it returns the launcher
// and the status file.
func (s *setup) script(args ...string) (launcher, status string) {
	s.t.Helper()
	s.n++
	var sb strings.Builder
	for k, v := range s.env {
		fmt.Fprintf(&sb, "export %s=%s\n", k, shq(v))
	}
	sb.WriteString("unset OPENAI_BASE_URL OPENAI_API_KEY KWS_THEME KWS_MODEL_PROFILES\n")
	quoted := []string{shq(s.kws), "--data-dir", shq(s.dirs["data"])}
	for _, a := range args {
		quoted = append(quoted, shq(a))
	}
	status = filepath.Join(s.root, fmt.Sprintf("status-%d", s.n))
	sb.WriteString(strings.Join(quoted, " ") + "\n")
	fmt.Fprintf(&sb, "echo $? >%s.tmp && mv %s.tmp %s\n", shq(status), shq(status), shq(status))
	return writeScript(s.t, filepath.Join(s.root, fmt.Sprintf("run-%d.sh", s.n)), sb.String()), status
}

// tmuxConf writes the tmux configuration the tests use: a dead pane stays
// readable, no status line.
func (s *setup) tmuxConf() string {
	s.t.Helper()
	conf := filepath.Join(s.root, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\n"), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return conf
}

// shellScript writes a shell for shell panes with a plain prompt and no
// history file.
func (s *setup) shellScript() string {
	return writeScript(s.t, filepath.Join(s.root, "shell.sh"),
		"export PS1='$ ' HISTFILE=/dev/null\nexec /bin/bash --norc --noprofile -i\n")
}

// serverPID is the pid the server wrote into its lock file.
func (s *setup) serverPID() int {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dirs["data"], "server.lock"))
	var pid int
	if _, err2 := fmt.Sscan(string(b), &pid); err != nil || err2 != nil || pid <= 0 {
		s.t.Fatalf("no server pid in the lock file: %v %v %q", err, err2, b)
	}
	return pid
}
