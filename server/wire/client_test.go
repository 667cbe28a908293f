package wire

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// listen listens on a socket in a new directory of mode dirMode and
// accepts connections until the test ends.
func listen(t *testing.T, dirMode os.FileMode) string {
	t.Helper()
	base, err := os.MkdirTemp("", "kwsw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := filepath.Join(base, "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if err := os.Chmod(dir, dirMode); err != nil {
		t.Fatal(err)
	}
	return sock
}

// TestDialChecksTheSocket: the client connects only to a socket in a
// directory of its own user that nobody else may enter, served by a
// process of its own user; anything else is refused before a byte is sent.
func TestDialChecksTheSocket(t *testing.T) {
	c, err := Dial(listen(t, 0o700))
	if err != nil {
		t.Fatalf("a private socket: %v", err)
	}
	c.Close()
	for _, mode := range []os.FileMode{0o777, 0o755, 0o1777} {
		if _, err := Dial(listen(t, mode)); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "open to other users") {
			t.Errorf("a socket in a %o directory: %v, want a refusal", mode, err)
		}
	}
	// A directory that is a link to a private one is not the user's own.
	sock := listen(t, 0o700)
	link := filepath.Join(filepath.Dir(filepath.Dir(sock)), "link")
	if err := os.Symlink(filepath.Dir(sock), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(filepath.Join(link, "s.sock")); !errors.Is(err, ErrUntrusted) {
		t.Errorf("a socket through a symbolic link: %v, want a refusal", err)
	}
	if _, err := Dial(filepath.Join(t.TempDir(), "none", "s.sock")); !errors.Is(err, ErrNoServer) {
		t.Errorf("no socket directory: %v, want ErrNoServer", err)
	}
}

// TestDialChecksTheServersUser: a directory of another user (here handed
// to uid 65534, as if that user had made it first) is refused, and so is a
// server that runs as another user than the one dialing.
func TestDialChecksTheServersUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to hand a directory to another user")
	}
	sock := listen(t, 0o700)
	if _, err := dialAs(sock, 65534); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "belongs to uid 0") {
		t.Fatalf("a directory of uid 0 dialed as 65534: %v", err)
	}
	if err := os.Chown(filepath.Dir(sock), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := dialAs(sock, 65534); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "runs as uid 0") {
		t.Fatalf("a server of uid 0 dialed as 65534: %v", err)
	}
}
