package server

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

// waitLimit bounds every wait of these tests; it is a failure, never a pause.
const waitLimit = 20 * time.Second

// harness is a daemon on a real socket in a fresh data dir, whose
// sessions are fakeSessions.
type harness struct {
	t       *testing.T
	d       *Daemon
	data    string
	sock    string
	served  chan error
	created chan *fakeSession
	agents  []AgentState
}

// shortDir is a fresh directory with a path short enough for a socket.
func shortDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "kst")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// newHarness starts and serves a daemon; mod may change its Config.
func newHarness(t *testing.T, mod func(*Config)) *harness {
	h := &harness{t: t, data: t.TempDir(), sock: filepath.Join(shortDir(t), "run", "s.sock")}
	return h.start(mod)
}

// start starts a daemon on h's data dir and socket.
func (h *harness) start(mod func(*Config)) *harness {
	h.created = make(chan *fakeSession, 16)
	h.agents = []AgentState{{Name: "agent-1", State: "working"}, {Name: "agent-3", State: "asking", Waiting: true}}
	cfg := Config{DataDir: h.data, Socket: h.sock, NewSession: func(spec SessionSpec) (Session, error) {
		f := newFake(spec, h.agents)
		h.created <- f
		return f, nil
	}}
	if mod != nil {
		mod(&cfg)
	}
	d, err := Start(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.d, h.served = d, make(chan error, 1)
	go func() { h.served <- d.Serve() }()
	h.t.Cleanup(func() {
		d.Shutdown(true)
		h.waitServed()
	})
	return h
}

// waitServed waits for Serve to return.
func (h *harness) waitServed() {
	select {
	case err := <-h.served:
		if err != nil {
			h.t.Errorf("Serve: %v", err)
		}
		h.served <- nil
	case <-time.After(waitLimit):
		h.t.Fatal("Serve did not return")
	}
}

// session waits for the daemon to create a session.
func (h *harness) session() *fakeSession {
	select {
	case f := <-h.created:
		return f
	case <-time.After(waitLimit):
		h.t.Fatal("no session was created")
		return nil
	}
}

// dial connects to the daemon and sends hello.
func (h *harness) dial(hello wire.Hello) *net.UnixConn {
	c, err := wire.Dial(h.sock)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { c.Close() })
	hello.Version = wire.Version
	if err := wire.WriteJSON(c, wire.FrameHello, hello); err != nil {
		h.t.Fatal(err)
	}
	return c
}

// request runs a hello that needs no terminal.
func (h *harness) request(hello wire.Hello) ([]byte, wire.Exit) {
	c, err := wire.Dial(h.sock)
	if err != nil {
		h.t.Fatal(err)
	}
	out, e, err := Request(c, hello)
	if err != nil {
		h.t.Fatal(err)
	}
	return out, e
}

// ls lists the sessions through the socket.
func (h *harness) ls() []SessionInfo {
	out, e := h.request(wire.Hello{Op: "ls"})
	var list []SessionInfo
	if e.Code != 0 || json.Unmarshal(out, &list) != nil {
		h.t.Fatalf("ls: %+v %q", e, out)
	}
	return list
}

// client is an attached connection whose frames a goroutine reads.
type client struct {
	t      *testing.T
	c      *net.UnixConn
	frames chan [2][]byte
	out    bytes.Buffer
	exit   *wire.Exit
}

// attach attaches a client and waits for its Attached frame.
func (h *harness) attach(hello wire.Hello) (*client, wire.Attached) {
	hello.Op = "attach"
	cl := &client{t: h.t, c: h.dial(hello), frames: make(chan [2][]byte, 4096)}
	go func() {
		defer close(cl.frames)
		for {
			typ, payload, err := wire.ReadFrame(cl.c)
			if err != nil {
				return
			}
			cl.frames <- [2][]byte{{typ}, payload}
		}
	}()
	typ, payload := cl.next()
	var a wire.Attached
	if typ != wire.FrameAttached || wire.Decode(payload, &a) != nil {
		h.t.Fatalf("attach: got %q %q", typ, payload)
	}
	return cl, a
}

// next returns the next frame.
func (cl *client) next() (byte, []byte) {
	select {
	case f, ok := <-cl.frames:
		if !ok {
			cl.t.Fatal("the connection ended without an exit frame")
		}
		return f[0][0], f[1]
	case <-time.After(waitLimit):
		cl.t.Fatal("no frame came")
	}
	return 0, nil
}

// waitOutput reads frames until the output holds want, and returns the
// output read so far; an exit frame before it is a failure.
func (cl *client) waitOutput(want string) []byte {
	cl.t.Helper()
	for !bytes.Contains(cl.out.Bytes(), []byte(want)) {
		typ, payload := cl.next()
		switch typ {
		case wire.FrameOutput:
			cl.out.Write(payload)
		case wire.FrameExit:
			cl.t.Fatalf("exit %q while waiting for %q", payload, want)
		}
	}
	return cl.out.Bytes()
}

// waitExit reads frames until the exit frame.
func (cl *client) waitExit() wire.Exit {
	cl.t.Helper()
	for {
		typ, payload := cl.next()
		if typ == wire.FrameOutput {
			cl.out.Write(payload)
		}
		if typ == wire.FrameExit {
			var e wire.Exit
			if err := wire.Decode(payload, &e); err != nil {
				cl.t.Fatal(err)
			}
			return e
		}
	}
}

// typeKeys sends input.
func (cl *client) typeKeys(s string) {
	if err := wire.WriteFrame(cl.c, wire.FrameInput, []byte(s)); err != nil {
		cl.t.Fatal(err)
	}
}
