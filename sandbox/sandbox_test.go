package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needSandbox skips the test when this machine cannot confine commands.
func needSandbox(t testing.TB) int {
	t.Helper()
	status, err := Available()
	if err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	var v int
	fmt.Sscanf(status, "landlock v%d", &v)
	return v
}

// run runs script with bash under p and returns its output and exit code.
func run(t *testing.T, p Policy, script string) (string, int) {
	t.Helper()
	cmd, err := Command(context.Background(), p, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := Start(cmd, p); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", script, err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// world is a workspace, a temp dir, an outside dir and two hidden dirs
// (data and config), each its own temp dir.
type world struct {
	ws, tmp, outside, data, config string
}

func newWorld(t *testing.T) (world, Policy) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	w := world{ws: t.TempDir(), tmp: t.TempDir(), outside: t.TempDir(), data: t.TempDir(), config: t.TempDir()}
	for _, f := range []string{filepath.Join(w.data, "vault.db"), filepath.Join(w.config, "api_key"), filepath.Join(w.outside, "plain")} {
		if err := os.WriteFile(f, []byte("secret-bytes\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return w, Policy{Workspace: w.ws, Temp: w.tmp, Hidden: []string{w.data, w.config}, Network: true}
}

func TestSandboxConfinesFiles(t *testing.T) {
	needSandbox(t)
	w, p := newWorld(t)
	home, _ := os.UserHomeDir()
	homeProbe := filepath.Join(home, fmt.Sprintf("kws-sandbox-probe-%d", os.Getpid()))
	tmpProbe := filepath.Join(os.TempDir(), fmt.Sprintf("kws-sandbox-probe-%d", os.Getpid()))
	t.Cleanup(func() { os.Remove(homeProbe); os.Remove(tmpProbe) })
	for _, c := range []struct {
		name, script string
		ok           bool
	}{
		{"write workspace", `echo hi > f && mkdir -p d/e && mv f d/e/g && cat d/e/g`, true},
		{"write TMPDIR", `test "$TMPDIR" = ` + w.tmp + ` && echo x > "$TMPDIR/a" && cat "$TMPDIR/a"`, true},
		{"write /dev/null", `echo x > /dev/null`, true},
		{"read /etc/hostname", `cat /etc/hostname`, true},
		{"list /usr/bin", `ls /usr/bin | grep -qx bash`, true},
		{"read outside", `cat ` + w.outside + `/plain`, true},
		{"list a hidden dir's parent", `ls ` + filepath.Dir(w.data) + ` >/dev/null`, true},
		{"write outside", `echo x > ` + w.outside + `/new`, false},
		{"overwrite outside", `echo x > ` + w.outside + `/plain`, false},
		{"write home", `touch ` + homeProbe, false},
		{"write /tmp", `touch ` + tmpProbe, false},
		{"read data dir", `cat ` + w.data + `/vault.db`, false},
		{"read config dir", `cat ` + w.config + `/api_key`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := run(t, p, c.script)
			if (code == 0) != c.ok {
				t.Fatalf("%s: exit %d, want success %v\n%s", c.script, code, c.ok, out)
			}
			if strings.Contains(out, "secret-bytes") != (c.ok && strings.Contains(c.script, "plain")) {
				t.Fatalf("%s: output %q", c.script, out)
			}
		})
	}
	for _, f := range []string{homeProbe, tmpProbe, filepath.Join(w.outside, "new")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.outside, "plain")); string(b) != "secret-bytes\n" {
		t.Errorf("outside file changed: %q", b)
	}
}

func TestSandboxBlocksSignalsOutside(t *testing.T) {
	if needSandbox(t) < 6 {
		t.Skip("signal scoping needs Landlock ABI 6")
	}
	_, p := newWorld(t)
	if out, code := run(t, p, fmt.Sprintf(`kill -0 %d`, os.Getpid())); code == 0 {
		t.Fatalf("the sandboxed command could signal kws: %s", out)
	}
	if out, code := run(t, p, `sleep 5 & kill $!`); code != 0 {
		t.Fatalf("the command could not signal its own child: %s", out)
	}
}

func TestSandboxHiddenAndWorkspaceNest(t *testing.T) {
	needSandbox(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	base := t.TempDir()
	hidden := filepath.Join(base, "hidden")
	ws := filepath.Join(hidden, "ws")
	inner := filepath.Join(ws, "inner-hidden")
	for _, d := range []string{filepath.Join(ws, "sub"), inner} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(hidden, "secret"), filepath.Join(inner, "secret"), filepath.Join(ws, "mine")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(hidden, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	p := Policy{Workspace: ws, Hidden: []string{hidden, inner}}
	for _, c := range []struct {
		script string
		ok     bool
	}{
		{`cat mine && echo y >> mine && mkdir sub/d && echo z > sub/d/f`, true},
		// Landlock grants whole trees: the directories on the way down
		// to a hidden path get no rule of their own, so nothing new can
		// be made directly in them.
		{`echo y > new`, false},
		{`cat ` + hidden + `/secret`, false},
		{`cat ` + base + `/link/secret`, false},
		{`cat inner-hidden/secret`, false},
		{`echo y > inner-hidden/new`, false},
	} {
		if out, code := run(t, p, c.script); (code == 0) != c.ok {
			t.Errorf("%s: exit %d, want success %v\n%s", c.script, code, c.ok, out)
		}
	}
}

func TestSandboxGoUsesOwnCache(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	_, p := newWorld(t)
	out, code := run(t, p, `go version && go env GOCACHE`)
	want, _ := CacheDir()
	if code != 0 || !strings.Contains(out, "go version") || !strings.Contains(out, filepath.Join(want, "go-build")) {
		t.Fatalf("exit %d: %s (want GOCACHE below %s)", code, out, want)
	}
}

func TestSandboxNetwork(t *testing.T) {
	if needSandbox(t) < 4 {
		t.Skip("TCP rules need Landlock ABI 4")
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
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, port)
	for _, network := range []bool{true, false} {
		_, p := newWorld(t)
		p.Network = network
		if out, code := run(t, p, script); (code == 0) != network {
			t.Errorf("network %v: connect exit %d\n%s", network, code, out)
		}
	}
}

// TestStartLeavesCallerFree checks that confining the thread a command
// starts from leaves the rest of the process unconfined: after many
// confined commands, files and plain commands outside the workspace
// still work from every goroutine.
func TestStartLeavesCallerFree(t *testing.T) {
	needSandbox(t)
	w, p := newWorld(t)
	for range 20 {
		if out, code := run(t, p, `true`); code != 0 {
			t.Fatalf("confined true: %d %s", code, out)
		}
	}
	errc := make(chan error, 8)
	for i := range 8 {
		go func() {
			f := filepath.Join(w.outside, fmt.Sprint("f", i))
			if err := os.WriteFile(f, nil, 0o600); err != nil {
				errc <- err
				return
			}
			errc <- exec.Command("touch", f+"-touched").Run()
		}()
	}
	for range 8 {
		if err := <-errc; err != nil {
			t.Fatalf("the caller was confined: %v", err)
		}
	}
}

func TestSandboxOff(t *testing.T) {
	t.Setenv(DisableEnv, "off")
	if _, err := Available(); err == nil || !strings.Contains(err.Error(), DisableEnv) {
		t.Fatalf("Available with %s=off: %v", DisableEnv, err)
	}
}

// BenchmarkTrue runs `bash -c true` plainly and confined, for the
// latency the sandbox adds to every shell command.
func BenchmarkTrue(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("bash", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		needSandbox(b)
		p := Policy{Workspace: b.TempDir(), Temp: b.TempDir(), Hidden: []string{b.TempDir()}}
		for b.Loop() {
			cmd, err := Command(context.Background(), p, "bash", "-c", "true")
			if err != nil {
				b.Fatal(err)
			}
			if err := Start(cmd, p); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
