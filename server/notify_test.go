package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

// TestNotify checks what each notification setting sends attached
// terminals when an agent starts waiting, with the message's control
// characters stripped.
func TestNotify(t *testing.T) {
	const msg = "agent-3\x1b]0;evil\a waits\n\u009b"
	const clean = "agent-3]0;evil waits"
	for _, tc := range []struct {
		mode, want string
	}{
		{"", "\x1b]9;" + clean + "\a"},
		{"osc9", "\x1b]9;" + clean + "\a"},
		{"osc777", "\x1b]777;notify;kws;" + clean + "\a"},
		{"bell", "\a"},
		{"off", ""},
	} {
		t.Run(cmpOr(tc.mode, "default"), func(t *testing.T) {
			h := newHarness(t, func(c *Config) { c.Notify = tc.mode })
			a, _ := h.attach(wire.Hello{Workspace: "/w/n", Size: wire.Size{Cols: 80, Rows: 24}})
			f := h.session()
			<-f.attached
			a.typeKeys("a")
			a.waitOutput("<a>")
			a.out.Reset()
			f.spec.Notify(msg)
			a.typeKeys("m")
			out := string(a.waitOutput("<m>"))
			got := out[:strings.Index(out, "<m>")]
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q in it", got, tc.want)
			}
			if tc.mode == "bell" || tc.mode == "off" {
				// The screen's own drawing may hold other OSC sequences
				// (tcell resets hyperlinks with OSC 8).
				if strings.Contains(got, "agent-3") || strings.Contains(got, "\x1b]9;") || strings.Contains(got, "\x1b]777;") {
					t.Fatalf("got %q, want no message", got)
				}
			}
			if tc.mode == "off" && strings.Contains(got, "\a") {
				t.Fatalf("got %q, want nothing", got)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestSlowClient attaches a client that does not read: the other client
// and the screen go on, the slow one's backlog is dropped past the limit,
// and once it reads again it gets the rest and is repainted.
func TestSlowClient(t *testing.T) {
	h := newHarness(t, nil)
	size := wire.Size{Cols: 80, Rows: 24}
	fast, _ := h.attach(wire.Hello{Workspace: "/w/s", Size: size})
	f := h.session()
	<-f.attached
	slow := h.dial(wire.Hello{Op: "attach", Workspace: "/w/s", Size: size})
	<-f.attached
	tty := h.ttyOf("s")
	const chunks = 10
	for i := range chunks {
		mark := fmt.Sprintf("#%d#", i)
		chunk := append(bytes.Repeat([]byte{'.'}, 1<<20-16), mark...)
		if _, err := tty.Write(chunk); err != nil {
			t.Fatal(err)
		}
		fast.waitOutput(mark)
		fast.out.Reset()
	}
	fast.typeKeys("z")
	f.waitKey(t, 'z')
	fast.waitOutput("<z>")

	var got, marks int
	var tail []byte
	_ = slow.SetReadDeadline(time.Now().Add(waitLimit))
	for !bytes.Contains(tail, []byte("<z>")) {
		typ, payload, err := wire.ReadFrame(slow)
		if err != nil {
			t.Fatalf("the slow client, after %d bytes: %v", got, err)
		}
		if typ == wire.FrameOutput {
			got += len(payload)
			if bytes.HasSuffix(payload, []byte("#")) {
				marks++
			}
			tail = append(tail[max(0, len(tail)-8):], payload...)
		}
	}
	if marks >= chunks {
		t.Fatalf("the slow client got all %d chunks (%d bytes): nothing was dropped", marks, got)
	}
	// Then the server repaints it: a frame paints every row, the keys'
	// cells among them.
	lastRow := []byte(h.d.ti.ti.TGoto(0, size.Rows-1))
	for {
		typ, payload, err := wire.ReadFrame(slow)
		if err != nil {
			t.Fatalf("the slow client was not repainted once it caught up: %v", err)
		}
		if typ == wire.FrameOutput && bytes.Contains(payload, []byte("<z>")) && bytes.Contains(payload, lastRow) {
			return
		}
	}
}
