package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

// streams records what a command wrote to stdout and stderr, in order.
type streams struct {
	mu  sync.Mutex
	log []string
}

func (s *streams) writer(name string) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		s.mu.Lock()
		s.log = append(s.log, name+":"+string(p))
		s.mu.Unlock()
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// execResult is what a command run by the server read.
type execResult struct {
	req   ExecRequest
	stdin []byte
	err   error
}

// bigOutput is what the command "big" writes: more than one frame.
var bigOutput = bytes.Repeat([]byte("0123456789abcdef"), 3<<16)

// execHarness is a daemon whose commands read all their input, report it
// on ran, write to stdout and stderr in turn and exit 3; "big" writes
// bigOutput and exits 0. runs is its Config.Runs.
func execHarness(t *testing.T, runs func([]string) bool) (*harness, chan execResult) {
	ran := make(chan execResult, 1)
	h := newHarness(t, func(c *Config) {
		c.Runs = runs
		c.Exec = func(req ExecRequest) int {
			if req.Args[0] == "big" {
				_, _ = req.Stdout.Write(bigOutput)
				return 0
			}
			in, err := io.ReadAll(req.Stdin)
			ran <- execResult{req: req, stdin: in, err: err}
			fmt.Fprint(req.Stdout, "out1")
			fmt.Fprint(req.Stderr, "err1")
			fmt.Fprint(req.Stdout, "out2")
			return 3
		}
	})
	return h, ran
}

// TestExecRelaysStreams runs a command with 3 MiB of input in the server:
// the input arrives whole, the output streams come back in order and the
// exit code passes.
func TestExecRelaysStreams(t *testing.T) {
	h, ran := execHarness(t, nil)
	in := make([]byte, 3<<20+17)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range in {
		in[i] = byte(rng.Uint32())
	}
	var s streams
	c, err := wire.Dial(h.sock)
	if err != nil {
		t.Fatal(err)
	}
	e, err := wire.Exec(c, wire.Hello{Args: []string{"vault", "put"}, Cwd: "/some/dir"}, bytes.NewReader(in), s.writer("out"), s.writer("err"))
	if err != nil || e.Code != 3 {
		t.Fatalf("Exec: %d %v, want 3", e.Code, err)
	}
	r := <-ran
	if r.err != nil || !bytes.Equal(r.stdin, in) {
		t.Fatalf("the command read %d bytes (%v), want the %d sent", len(r.stdin), r.err, len(in))
	}
	if !slices.Equal(r.req.Args, []string{"vault", "put"}) || r.req.Cwd != "/some/dir" {
		t.Fatalf("the command ran %q in %q", r.req.Args, r.req.Cwd)
	}
	if want := []string{"out:out1", "err:err1", "out:out2"}; !slices.Equal(s.log, want) {
		t.Fatalf("output %q, want %q", s.log, want)
	}
	// Output larger than a frame comes back whole.
	var out, errOut bytes.Buffer
	c, _ = wire.Dial(h.sock)
	if e, err := wire.Exec(c, wire.Hello{Args: []string{"big"}}, bytes.NewReader(nil), &out, &errOut); err != nil || e.Code != 0 || !bytes.Equal(out.Bytes(), bigOutput) {
		t.Fatalf("big output: %d %v, %d bytes of %d", e.Code, err, out.Len(), len(bigOutput))
	}
}

// TestExecClientGoneMidInput checks that a command whose client went
// away before the end of its input reads an error, not a clean end.
func TestExecClientGoneMidInput(t *testing.T) {
	h, ran := execHarness(t, nil)
	c := h.dial(wire.Hello{Op: "exec", Args: []string{"vault", "put"}})
	if err := wire.WriteFrame(c, wire.FrameInput, []byte("half of it")); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case r := <-ran:
		if !errors.Is(r.err, errClientGone) || string(r.stdin) != "half of it" {
			t.Fatalf("the command read %q and %v, want errClientGone", r.stdin, r.err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the command never finished reading")
	}
	// So does a client that sends a malformed frame.
	c = h.dial(wire.Hello{Op: "exec", Args: []string{"vault", "put"}})
	if _, err := c.Write(header('?', 0)); err != nil {
		t.Fatal(err)
	}
	if r := <-ran; !errors.Is(r.err, errClientGone) {
		t.Fatalf("after garbage the command read %v, want errClientGone", r.err)
	}
	// A clean end of input is io.EOF: ReadAll returns no error.
	c = h.dial(wire.Hello{Op: "exec", Args: []string{"vault", "put"}})
	_ = wire.WriteFrame(c, wire.FrameInput, []byte("all"))
	_ = wire.WriteFrame(c, wire.FrameInput, nil)
	if r := <-ran; r.err != nil || string(r.stdin) != "all" {
		t.Fatalf("a whole input read as %q, %v", r.stdin, r.err)
	}
	if e, ok := exitOf(t, c); !ok || e.Code != 3 {
		t.Fatalf("exit %+v %v, want code 3", e, ok)
	}
}

// TestExecIfServer checks the thin client's exec: a command Runs accepts
// runs with its whole input after FrameRuns; any other, and every one
// when Runs is nil, comes back as Exit.Local at once, with nothing run
// and nothing of the client's input read.
func TestExecIfServer(t *testing.T) {
	h, ran := execHarness(t, func(args []string) bool { return args[0] == "vault" })
	var s streams
	c, err := wire.Dial(h.sock)
	if err != nil {
		t.Fatal(err)
	}
	e, err := wire.Exec(c, wire.Hello{Args: []string{"vault", "put"}, IfServer: true}, bytes.NewReader([]byte("in")), s.writer("out"), s.writer("err"))
	if err != nil || e.Code != 3 || e.Local {
		t.Fatalf("a command the server runs: %+v %v", e, err)
	}
	if r := <-ran; string(r.stdin) != "in" {
		t.Fatalf("the command read %q", r.stdin)
	}
	none, noneRan := execHarness(t, nil)
	for _, h := range []*harness{h, none} {
		for _, args := range [][]string{{"attach"}, nil} {
			c, err := wire.Dial(h.sock)
			if err != nil {
				t.Fatal(err)
			}
			read := false
			in := readerFunc(func(p []byte) (int, error) { read = true; return copy(p, "keep me"), io.EOF })
			var out, errOut bytes.Buffer
			e, err := wire.Exec(c, wire.Hello{Args: args, IfServer: true}, in, &out, &errOut)
			if err != nil || !e.Local || e.Code != 0 || out.Len()+errOut.Len() > 0 || read {
				t.Fatalf("no Runs %v, %q: %+v %v, printed %q %q, input read: %v", h == none, args, e, err, out.String(), errOut.String(), read)
			}
		}
	}
	for _, ran := range []chan execResult{ran, noneRan} {
		select {
		case r := <-ran:
			t.Fatalf("a local command ran in the server: %q", r.req.Args)
		default:
		}
	}
}

// readerFunc is a reader that is a function.
type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
