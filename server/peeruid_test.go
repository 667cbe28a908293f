package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/server/wire"
)

// helperSocketEnv tells TestHelperClient which socket to ask;
// helperRawEnv, when set, makes it connect without wire.Dial's checks, as
// a hostile client would.
const (
	helperSocketEnv = "KWS_TEST_HELPER_SOCKET"
	helperRawEnv    = "KWS_TEST_HELPER_RAW"
)

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
	if os.Getenv(helperRawEnv) != "" {
		c, err = net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	}
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

// asNobodyRaw is asNobody with a client that skips wire.Dial's checks.
func asNobodyRaw(t *testing.T, sock string) helperResult {
	t.Helper()
	t.Setenv(helperRawEnv, "1")
	return asNobody(t, sock)
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
// socket 0600, and that a directory open to others that kws did not make
// (a shared 1777 one, say) is refused and left as it was, never chmodded.
func TestSocketIsPrivate(t *testing.T) {
	base := shortDir(t)
	for _, mode := range []os.FileMode{0o755, 0o777 | os.ModeSticky} {
		loose := filepath.Join(base, fmt.Sprintf("loose%o", mode.Perm()))
		if err := os.Mkdir(loose, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(loose, mode); err != nil {
			t.Fatal(err)
		}
		if ln, err := Listen(filepath.Join(loose, "s.sock")); err == nil || !errors.Is(err, wire.ErrUntrusted) {
			if ln != nil {
				ln.Close()
			}
			t.Fatalf("listening in a %v directory: %v, want a refusal", mode, err)
		}
		if fi, err := os.Stat(loose); err != nil || fi.Mode() != os.ModeDir|mode {
			t.Fatalf("the refused directory is now %v (%v), want %v as it was", fi.Mode(), err, os.ModeDir|mode)
		}
	}
	for _, sock := range []string{filepath.Join(base, "a", "b", "s.sock")} {
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
	// The client refuses a socket in a directory of another user's...
	r = asNobody(t, h.sock)
	if !strings.Contains(r.DialError, "belongs to uid 0") || r.Exit != nil {
		t.Fatalf("with the socket open to everyone: %+v, want the client's refusal", r)
	}
	// ... and a client that does not check is refused by the server.
	r = asNobodyRaw(t, h.sock)
	if r.DialError != "" || r.Exit == nil || r.Exit.Code == 0 || !strings.Contains(r.Exit.Message, "refused") {
		t.Fatalf("with the socket open to everyone, unchecked: %+v, want the server's refusal", r)
	}
	if err := os.Chmod(filepath.Dir(h.sock), 0o700); err != nil {
		t.Fatal(err)
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
