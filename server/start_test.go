package server

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kwsdev/kws/server/wire"
)

// TestStaleSocketIsReplaced checks that a socket left by a dead server,
// or a leftover file at its path, is replaced and served.
func TestStaleSocketIsReplaced(t *testing.T) {
	for _, leftover := range []string{"socket", "file"} {
		t.Run(leftover, func(t *testing.T) {
			h := &harness{t: t, data: t.TempDir(), sock: filepath.Join(shortDir(t), "run", "s.sock")}
			if err := os.MkdirAll(filepath.Dir(h.sock), 0o700); err != nil {
				t.Fatal(err)
			}
			if leftover == "socket" {
				ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: h.sock, Net: "unix"})
				if err != nil {
					t.Fatal(err)
				}
				ln.SetUnlinkOnClose(false)
				ln.Close()
			} else if err := os.WriteFile(h.sock, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := wire.Dial(h.sock); !errors.Is(err, wire.ErrNoServer) {
				t.Fatalf("dial the stale socket: %v, want wire.ErrNoServer", err)
			}
			h.start(nil)
			if list := h.ls(); len(list) != 0 {
				t.Fatalf("ls: %+v", list)
			}
		})
	}
}

// TestSecondStartIsRefused checks that a second server on a data dir that
// is served, or on a socket that answers, gets ErrRunning and that the
// first keeps serving.
func TestSecondStartIsRefused(t *testing.T) {
	h := newHarness(t, nil)
	for name, cfg := range map[string]Config{
		"same data dir": {DataDir: h.data, Socket: filepath.Join(shortDir(t), "other.sock")},
		"same socket":   {DataDir: t.TempDir(), Socket: h.sock},
	} {
		d, err := Start(cfg)
		if !errors.Is(err, ErrRunning) {
			if d != nil {
				d.Shutdown(true)
			}
			t.Fatalf("%s: %v, want ErrRunning", name, err)
		}
	}
	if list := h.ls(); len(list) != 0 {
		t.Fatalf("ls: %+v", list)
	}
	if _, err := os.Stat(h.sock); err != nil {
		t.Fatalf("the refused start touched the socket: %v", err)
	}
}

// TestStartRace starts servers on one data dir at the same instant: one
// wins, the others get ErrRunning, and the winner serves.
func TestStartRace(t *testing.T) {
	data, sock := t.TempDir(), filepath.Join(shortDir(t), "run", "s.sock")
	const n = 8
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []*Daemon
		start   = make(chan struct{})
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			d, err := Start(Config{DataDir: data, Socket: sock})
			if err != nil {
				if !errors.Is(err, ErrRunning) {
					t.Errorf("Start: %v, want ErrRunning", err)
				}
				return
			}
			mu.Lock()
			winners = append(winners, d)
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("%d servers started, want 1", len(winners))
	}
	d := winners[0]
	served := make(chan error, 1)
	go func() { served <- d.Serve() }()
	c, err := wire.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	if out, e, err := Request(c, wire.Hello{Op: "ls"}); err != nil || e.Code != 0 || string(out) != "[]" {
		t.Fatalf("ls: %q %+v %v", out, e, err)
	}
	d.Shutdown(true)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if _, err := wire.Dial(sock); !errors.Is(err, wire.ErrNoServer) {
		t.Fatalf("after shutdown: %v, want wire.ErrNoServer", err)
	}
	if d, err := Start(Config{DataDir: data, Socket: sock}); err != nil {
		t.Fatalf("a new server after the first stopped: %v", err)
	} else {
		d.Shutdown(true)
		_ = d.Serve()
	}
}
