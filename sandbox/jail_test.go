//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/internal/proctest"
)

// needJail skips the test when commands cannot run in namespaces here.
func needJail(t *testing.T) {
	t.Helper()
	needSandbox(t)
	if !Jailed() {
		status, _ := Available()
		t.Skipf("no namespaces: %s", status)
	}
}

// needPython skips the test without python3, which opens the sockets
// bash cannot.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

// serve accepts and closes connections on ln until it is closed.
func serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// listen listens on network/addr for the test's lifetime.
func listen(t *testing.T, network, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go serve(ln)
	return ln
}

// connectPy is a python3 command that connects a stream socket to addr
// (an AF_UNIX path, "\0name" for an abstract one, or host:port).
func connectPy(family, addr string) string {
	return fmt.Sprintf(`python3 -c 'import socket,sys; s=socket.socket(socket.%s); s.settimeout(5); s.connect(%s); print("connected")'`, family, addr)
}

func TestJailNetwork(t *testing.T) {
	needJail(t)
	needPython(t)
	host := listen(t, "tcp4", "127.0.0.1:0")
	port := host.Addr().(*net.TCPAddr).Port
	w, p := newWorld(t)
	p.Network = false
	abstract := listen(t, "unix", "@kws-jail-test-"+strconv.Itoa(os.Getpid()))
	outside := listen(t, "unix", filepath.Join(w.outside, "svc.sock"))
	inside := listen(t, "unix", filepath.Join(w.ws, "own.sock"))
	hostNet, _ := os.Readlink("/proc/self/ns/net")

	for _, c := range []struct {
		name, script string
		ok           bool
	}{
		{"host loopback TCP", fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, port), false},
		{"own loopback TCP", `python3 -c 'import socket; l=socket.socket(); l.bind(("127.0.0.1",0)); l.listen(); c=socket.create_connection(l.getsockname()); print("ok")'`, true},
		{"own network namespace", `test "$(readlink /proc/self/ns/net)" != "` + hostNet + `"`, true},
		{"host abstract socket", connectPy("AF_UNIX", `"\0`+abstract.Addr().String()[1:]+`"`), false},
		{"host socket outside the workspace", connectPy("AF_UNIX", `"`+outside.Addr().String()+`"`), false},
		{"socket in the workspace", connectPy("AF_UNIX", `"`+inside.Addr().String()+`"`), true},
	} {
		if out, code := run(t, p, c.script); (code == 0) != c.ok {
			t.Errorf("%s: exit %d, want success %v\n%s", c.name, code, c.ok, out)
		}
	}

	p.Network = true
	if out, code := run(t, p, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, port)); code != 0 {
		t.Errorf("with the network granted, the host's loopback is reachable: exit %d\n%s", code, out)
	}
	if out, code := run(t, p, connectPy("AF_UNIX", `"`+outside.Addr().String()+`"`)); code == 0 {
		t.Errorf("the network does not grant the host's Unix sockets:\n%s", out)
	}
}

func TestJailKillsWhatTheCommandLeaves(t *testing.T) {
	needJail(t)
	_, p := newWorld(t)
	marker := fmt.Sprintf("kws-leftover-%d", os.Getpid())
	script := fmt.Sprintf(`setsid nohup bash -c 'exec -a %[1]s-a sleep 400' >/dev/null 2>&1 &
(bash -c 'exec -a %[1]s-b sleep 400' &)
sleep 400 &
disown -a
echo started`, marker)
	out, code := run(t, p, script)
	if code != 0 || !strings.Contains(out, "started") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if left := proctest.Marked(marker); len(left) > 0 {
		t.Fatalf("processes outlived their command: %v", left)
	}
}

// TestJailHelperProcess is not a test: TestJailDiesWithKws runs the test
// binary as a stand-in for kws, which starts a jailed command and waits.
func TestJailHelperProcess(t *testing.T) {
	marker := os.Getenv("KWS_JAIL_HELPER")
	if marker == "" {
		t.Skip("helper process only")
	}
	p := Policy{Workspace: t.TempDir(), Temp: t.TempDir()}
	cmd, err := Command(context.Background(), p, "bash", "-c", fmt.Sprintf(`(exec -a %s sleep 400) & echo started; wait`, marker))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = os.Stdout
	if err := Start(cmd, p); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

func TestJailDiesWithKws(t *testing.T) {
	needJail(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	marker := fmt.Sprintf("kws-orphan-%d", os.Getpid())
	helper := exec.Command(os.Args[0], "-test.run=^TestJailHelperProcess$")
	helper.Env = append(os.Environ(), "KWS_JAIL_HELPER="+marker)
	stdout, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "started\n" {
		helper.Process.Kill()
		t.Fatalf("helper: %q %v", line, err)
	}
	if len(proctest.Marked(marker)) == 0 {
		t.Fatal("the jailed command is not running")
	}
	helper.Process.Kill()
	helper.Wait()
	// kws is gone: the jail's init reads EOF and takes the command
	// with it. Wait for that state, however long a loaded machine takes.
	if left, err := proctest.WaitGone(marker, time.Minute); err != nil || len(left) > 0 {
		t.Fatalf("the command outlived kws: %v %v", left, err)
	}
}

func TestJailHidesHostProcesses(t *testing.T) {
	needJail(t)
	_, p := newWorld(t)
	t.Setenv("KWS_JAIL_SECRET", "s3cret-in-kws-env")
	p.Limits = Limits{}
	script := fmt.Sprintf(`cat /proc/%d/environ; cat /proc/1/environ | tr '\0' '\n' | grep -c KWS_JAIL_SECRET; ls /proc | grep -c '^[0-9]'`, os.Getpid())
	cmd, err := Command(context.Background(), p, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	// The command gets an environment without the secret, as the shell
	// tool gives it; kws's own must stay out of its reach.
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "KWS_JAIL_SECRET=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := Start(cmd, p); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if strings.Contains(out.String(), "s3cret") {
		t.Fatalf("the command read kws's environment:\n%s", out.String())
	}
	fields := strings.Fields(out.String())
	if n, err := strconv.Atoi(fields[len(fields)-1]); err != nil || n > 5 {
		t.Fatalf("the command sees %s processes:\n%s", fields[len(fields)-1], out.String())
	}
}

func TestJailLimits(t *testing.T) {
	needJail(t)
	needPython(t)
	_, p := newWorld(t)
	p.Limits = Limits{FileMB: 1, Processes: 16}
	if out, code := run(t, p, `head -c 2000000 /dev/zero > big`); code == 0 {
		t.Errorf("a 2 MB file was written under a 1 MiB limit:\n%s", out)
	}
	fork := `python3 -c '
import os
n = 0
try:
    for _ in range(64):
        r, w = os.pipe()
        if os.fork() == 0:
            os.read(r, 1)
            os._exit(0)
        n += 1
except OSError:
    pass
print(n)'`
	out, code := run(t, p, fork)
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if code != 0 || err != nil || n >= 16 {
		t.Errorf("forked %q (exit %d) under a limit of 16 processes", out, code)
	}
	if cgroupLimits() != nil {
		return
	}
	p.Limits = Limits{MemoryMB: 64}
	out, code = run(t, p, `python3 -c 'b = bytearray(256 << 20); print("allocated")'`)
	if code == 0 || strings.Contains(out, "allocated") {
		t.Errorf("256 MB allocated under a limit of 64 MiB: exit %d\n%s", code, out)
	}
}

// gitRun runs git in dir, failing the test on error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestJailGitMetadataReadOnly(t *testing.T) {
	needJail(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	w, p := newWorld(t)
	gitRun(t, w.ws, "init", "-q")
	os.RemoveAll(filepath.Join(w.ws, ".git", "hooks"))
	p.ReadOnly, p.Forbidden = GitMetadata(w.ws)
	config, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config"))
	ident := `export GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@e GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@e; `
	for _, c := range []struct {
		name, script string
		ok           bool
	}{
		{"commit", ident + `echo x > f && git add f && git commit -qm x && git checkout -qb topic && git log --oneline`, true},
		{"plant a hook", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout`, false},
		{"replace the hooks dir", `mv .git/hooks .git/h2`, false},
		{"set core.fsmonitor", `git config core.fsmonitor 'echo pwned'`, false},
		{"rewrite the config", `echo '[core] fsmonitor = x' >> .git/config`, false},
		{"write info/attributes", `echo '* filter=x' > .git/info/attributes`, false},
	} {
		if out, code := run(t, p, c.script); (code == 0) != c.ok {
			t.Errorf("%s: exit %d, want success %v\n%s", c.name, code, c.ok, out)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config")); string(after) != string(config) {
		t.Errorf(".git/config changed:\n%s", after)
	}
	if entries, _ := os.ReadDir(filepath.Join(w.ws, ".git", "hooks")); len(entries) > 0 {
		t.Errorf(".git/hooks holds %v", entries)
	}
	// commondir would redirect the user's git to a config of the
	// command's choosing; it may not stay.
	out, _ := run(t, p, `mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf '[core]\n\tfsmonitor = echo pwned\n' > evil/config && echo ../evil > .git/commondir`)
	if _, err := os.Stat(filepath.Join(w.ws, ".git", "commondir")); err == nil {
		t.Fatalf(".git/commondir was planted:\n%s", out)
	}
	if !strings.Contains(out, "removed") {
		t.Errorf("the command was not told that .git/commondir was removed:\n%s", out)
	}
	if status := gitRun(t, w.ws, "status", "--short"); strings.Contains(status, "pwned") {
		t.Errorf("git ran planted code: %s", status)
	}
}

func TestJailWorktreeGitFileReadOnly(t *testing.T) {
	needJail(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	w, p := newWorld(t)
	repo := filepath.Join(w.outside, "repo")
	os.Mkdir(repo, 0o755)
	gitRun(t, repo, "init", "-q")
	gitRun(t, repo, "commit", "-q", "--allow-empty", "-m", "x")
	wt := filepath.Join(w.ws, "wt")
	gitRun(t, repo, "worktree", "add", "-q", wt)
	p.Workspace = wt
	p.ReadOnly, p.Forbidden = GitMetadata(wt)
	if out, code := run(t, p, `echo "gitdir: $PWD/fake" > .git`); code == 0 {
		t.Errorf("the worktree's .git file was rewritten:\n%s", out)
	}
}
