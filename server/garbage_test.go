package server

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

// exitOf reads what the server answers on c after the client stopped
// writing: the exit frame, or ok false when the connection ended without
// one.
func exitOf(t *testing.T, c *net.UnixConn) (wire.Exit, bool) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(waitLimit))
	for {
		typ, payload, err := wire.ReadFrame(c)
		if err != nil {
			return wire.Exit{}, false
		}
		if typ == wire.FrameExit {
			var e wire.Exit
			if err := wire.Decode(payload, &e); err != nil {
				t.Fatal(err)
			}
			return e, true
		}
	}
}

// TestGarbageOnTheSocket checks that each malformed connection gets an
// exit frame with a non-zero code and that the server keeps serving.
func TestGarbageOnTheSocket(t *testing.T) {
	h := newHarness(t, nil)
	hello := func(v any) []byte {
		data, _ := json.Marshal(v)
		return append(header(wire.FrameHello, uint32(len(data))), data...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	random[0] = '~' // not a frame type
	for _, tc := range []struct {
		name, in, want string
	}{
		{"random bytes", string(random), "unknown type"},
		{"nothing", "", "kws server"},
		{"half a header", string(header(wire.FrameHello, 40)[:3]), "header"},
		{"half a payload", string(append(header(wire.FrameHello, 40), `{"version":1,`...)), "cut short"},
		{"not a hello first", string(append(header(wire.FrameInput, 1), 'x')), "expected a hello"},
		{"bad JSON", string(append(header(wire.FrameHello, 5), "{nope"...)), "malformed"},
		{"wrong version", string(hello(wire.Hello{Version: 99, Op: "ls"})), "protocol"},
		{"unknown op", string(hello(wire.Hello{Version: wire.Version, Op: "format-disk"})), "unknown operation"},
		{"exec of nothing", string(hello(wire.Hello{Version: wire.Version, Op: "exec"})), "nothing to run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := wire.Dial(h.sock)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tc.in); err != nil {
				t.Fatal(err)
			}
			if err := c.CloseWrite(); err != nil {
				t.Fatal(err)
			}
			e, ok := exitOf(t, c)
			if !ok || e.Code == 0 || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("got %+v (exit frame %v), want a non-zero exit saying %q", e, ok, tc.want)
			}
			if list := h.ls(); len(list) != 0 {
				t.Fatalf("ls after garbage: %+v", list)
			}
		})
	}
}

// TestGarbageThenGone checks that peers that vanish mid-frame, or send
// more garbage than the limit, never stop the server.
func TestGarbageThenGone(t *testing.T) {
	h := newHarness(t, nil)
	for _, in := range [][]byte{
		header(wire.FrameHello, 1000)[:2],
		append(header(wire.FrameHello, 1000), `{"version":1,"op":"ls"`...),
		header(wire.FrameHello, 0xffffffff),
		make([]byte, 4<<20),
	} {
		c, err := wire.Dial(h.sock)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write(in)
		c.Close()
		if list := h.ls(); len(list) != 0 {
			t.Fatalf("ls after garbage: %+v", list)
		}
	}
	// A client attached to a session that sends garbage is dropped; the
	// session and its other clients go on.
	a, _ := h.attach(wire.Hello{Workspace: "/w/one", Size: wire.Size{Cols: 80, Rows: 24}})
	f := h.session()
	b, _ := h.attach(wire.Hello{Workspace: "/w/one", Size: wire.Size{Cols: 80, Rows: 24}})
	if _, err := b.c.Write([]byte("garbage!")); err != nil {
		t.Fatal(err)
	}
	if e := b.waitExit(); e.Code == 0 || !strings.Contains(e.Message, "unknown type") {
		t.Fatalf("the client that sent garbage got %+v", e)
	}
	a.typeKeys("g")
	f.waitKey(t, 'g')
	a.waitOutput("<g>")
	if list := h.ls(); len(list) != 1 || list[0].Clients != 1 {
		t.Fatalf("ls: %+v", list)
	}
}

// header is a frame header claiming n bytes of payload.
func header(typ byte, n uint32) []byte { return binary.BigEndian.AppendUint32([]byte{typ}, n) }
