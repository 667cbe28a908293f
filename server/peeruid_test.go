package server

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/server/wire"
)

// helperSocketEnv tells TestHelperClient which socket to ask.
const helperSocketEnv = "KWS_TEST_HELPER_SOCKET"

// helperResult is what TestHelperClient prints.
type helperResult struct {
	DialError string     `json:"dial_error,omitempty"`
	Exit      *wire.Exit `json:"exit,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// TestHelperClient is not a test: run by TestOtherUserIsRefused under
// another user, it asks the server for ls and prints what it got.
func TestHelperClient(t *testing.T) {
	sock := os.Getenv(helperSocketEnv)
	if sock == "" {
		t.Skip("a helper process of TestOtherUserIsRefused")
	}
	var r helperResult
	c, err := wire.Dial(sock)
	if err != nil {
		r.DialError = err.Error()
	} else {
		out, e, err := Request(c, wire.Hello{Op: "ls"})
		r.Exit = &e
		if err != nil {
			r.Error = fmt.Sprintf("%v (output %q)", err, out)
		}
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
	os.Exit(0)
}

// asNobody runs TestHelperClient as uid and gid 65534 against sock.
func asNobody(t *testing.T, sock string) helperResult {
	t.Helper()
	return underSetpriv(t, sock, "--reuid=65534", "--regid=65534", "--clear-groups")
}

// underSetpriv runs TestHelperClient against sock under setpriv with the
// options given.
func underSetpriv(t *testing.T, sock string, opts ...string) helperResult {
	t.Helper()
	// The test binary sits in a directory only root may enter: run a copy.
	dir := shortDir(t)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "client.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", append(opts, bin, "-test.run=^TestHelperClient$", "-test.count=1")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperSocketEnv+"="+sock)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the helper client: %v: %s", err, out)
	}
	var r helperResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the helper client printed %q: %v", out, err)
	}
	return r
}

// TestSocketIsPrivate checks the socket's directory is 0700 and the
// socket 0600, even when the directory existed with looser permissions.
func TestSocketIsPrivate(t *testing.T) {
	base := shortDir(t)
	loose := filepath.Join(base, "loose")
	if err := os.Mkdir(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sock := range []string{filepath.Join(base, "a", "b", "s.sock"), filepath.Join(loose, "s.sock")} {
		ln, err := Listen(sock)
		if err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]os.FileMode{filepath.Dir(sock): os.ModeDir | 0o700, sock: os.ModeSocket | 0o600} {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != want {
				t.Errorf("%s is %v, want %v", path, fi.Mode(), want)
			}
		}
		ln.Close()
		if _, err := os.Stat(sock); !os.IsNotExist(err) {
			t.Errorf("closing the listener left %s: %v", sock, err)
		}
	}
}

// TestOtherUserIsRefused runs a client as another user: it cannot reach
// the socket in its 0700 directory, and when the test opens the directory
// and the socket to everyone, the server's own uid check refuses it with
// an exit frame and keeps serving.
func TestOtherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user (uid 65534)")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux) to run a client as another user")
	}
	h := newHarness(t, nil)
	r := asNobody(t, h.sock)
	if !strings.Contains(r.DialError, "permission denied") || r.Exit != nil {
		t.Fatalf("through the 0700 directory: %+v, want permission denied", r)
	}
	for path, mode := range map[string]os.FileMode{filepath.Dir(filepath.Dir(h.sock)): 0o755, filepath.Dir(h.sock): 0o755, h.sock: 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	r = asNobody(t, h.sock)
	if r.DialError != "" || r.Exit == nil || r.Exit.Code == 0 || !strings.Contains(r.Exit.Message, "refused") {
		t.Fatalf("with the socket open to everyone: %+v, want a refusal", r)
	}
	if list := h.ls(); len(list) != 0 {
		t.Fatalf("ls after the refusal: %+v", list)
	}
}

// TestSandboxedCommandIsRefused runs a client of the server's own user
// with no_new_privs set, as kws's sandbox runs agents' commands: the
// server refuses it and keeps serving.
func TestSandboxedCommandIsRefused(t *testing.T) {
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux) to run a client with no_new_privs")
	}
	if self, err := noNewPrivs("self"); err != nil || self {
		t.Skip("the test itself runs with no_new_privs: the server cannot tell a sandboxed client apart")
	}
	h := newHarness(t, nil)
	r := underSetpriv(t, h.sock, "--no-new-privs")
	if r.Exit == nil || r.Exit.Code == 0 || !strings.Contains(r.Exit.Message, "sandboxed") {
		t.Fatalf("a client with no_new_privs: %+v, want a refusal", r)
	}
	if list := h.ls(); len(list) != 0 {
		t.Fatalf("ls after the refusal: %+v", list)
	}
}
