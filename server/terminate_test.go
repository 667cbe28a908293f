package server

import (
	"bufio"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kwsdev/kws/server/wire"
)

// helperOldServerEnv tells TestHelperOldServer where to listen.
const helperOldServerEnv = "KWS_TEST_OLD_SERVER_SOCKET"

// TestHelperOldServer is not a test: started by
// TestTerminateStopsAnOldServer, it answers every hello as a server of
// protocol 1 answers this version's clients, kill-server too, until a
// SIGTERM ends it. It prints a line once it listens.
func TestHelperOldServer(t *testing.T) {
	sock := os.Getenv(helperOldServerEnv)
	if sock == "" {
		t.Skip("a helper process of TestTerminateStopsAnOldServer")
	}
	ln, err := Listen(sock)
	if err != nil {
		os.Exit(2)
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		ln.Close()
		os.Exit(0)
	}()
	os.Stdout.WriteString("listening\n")
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(0)
		}
		_, _, _ = wire.ReadFrame(c)
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 2, Message: "kws server: protocol 1, this client speaks 2: run kws kill-server, then kws again"})
		c.Close()
	}
}

// TestTerminateStopsAnOldServer checks that a server refusing this
// client's protocol, kill-server included, is told apart (OldProtocol)
// and stopped by Terminate.
func TestTerminateStopsAnOldServer(t *testing.T) {
	sock := filepath.Join(shortDir(t), "run", "s.sock")
	child := exec.Command(os.Args[0], "-test.run=^TestHelperOldServer$")
	child.Env = append(os.Environ(), helperOldServerEnv+"="+sock)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	t.Cleanup(func() {
		_ = child.Process.Kill()
	})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "listening\n" {
		t.Fatalf("the old server did not start: %q %v", line, err)
	}
	c, err := wire.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	_, e, err := Request(c, wire.Hello{Op: "kill-server"})
	if err != nil || !OldProtocol(e) {
		t.Fatalf("kill-server to an old server: %+v %v", e, err)
	}
	if OldProtocol(wire.Exit{Code: 2, Message: "kws server: unknown operation \"x\""}) {
		t.Fatal("another refusal taken for an old protocol")
	}
	if err := Terminate(sock); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Fatalf("the old server ended with %v, want a clean exit on SIGTERM", err)
	}
	if _, err := wire.Dial(sock); err == nil {
		t.Fatal("the socket still answers")
	}
}
