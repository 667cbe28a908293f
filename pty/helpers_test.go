package pty

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// waitTimeout bounds every wait-for-condition in the tests.
const waitTimeout = 15 * time.Second

// needBinary skips the test when a program it runs is not installed.
func needBinary(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not installed", n)
		}
	}
}

// startShell starts bash without rc files and with the prompt "$ ", then
// waits for the first prompt. opts fields that are set override these.
func startShell(t testing.TB, opts Options) *Terminal {
	t.Helper()
	needBinary(t, "bash")
	if opts.Shell == "" {
		opts.Shell = "bash"
		opts.Args = []string{"--norc", "--noprofile"}
	}
	opts.Env = append([]string{"PS1=$ ", "HISTFILE=/dev/null", "PROMPT_COMMAND="}, opts.Env...)
	s, err := Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	waitFor(t, "first prompt", func() bool { return strings.HasPrefix(lastLine(s.Text()), "$") })
	return s
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitForeground waits until the terminal's foreground job is the program
// comm itself. Job alone is not enough: between the shell's fork and the
// exec the child still has the shell's signal handlers, so a Ctrl-c sent
// then is lost and the program runs on.
func waitForeground(t testing.TB, s *Terminal, comm string) {
	t.Helper()
	waitFor(t, comm+" in the foreground", func() bool { return s.JobName() == comm })
}

// waitLine waits until the screen holds a line equal to want.
func waitLine(t testing.TB, s *Terminal, want string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !hasLine(s.Text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for line %q; screen:\n%s", want, s.Text())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// run types a command line and presses Enter.
func run(t testing.TB, s *Terminal, line string) {
	t.Helper()
	if _, err := s.Write([]byte(line)); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := s.SendKey(Key{Key: KeyEnter}); err != nil {
		t.Fatalf("SendKey Enter: %v", err)
	}
}

// hasLine reports whether text has a line equal to want.
func hasLine(text, want string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == want {
			return true
		}
	}
	return false
}

// lastLine returns the last line of text.
func lastLine(text string) string {
	return text[strings.LastIndexByte(text, '\n')+1:]
}

// checkNoLeak fails when the goroutine count does not come back down to
// before within the wait timeout.
func checkNoLeak(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testEmu is an Emulator whose Read output is collected, one chunk per
// Read call, as the session's drain would.
type testEmu struct {
	Emulator
	out chan string
}

// emuKind is an Emulator implementation the emulator tests run against.
type emuKind struct {
	name string
	new  func(cols, rows, scrollback int) Emulator
}

// emuKinds are the Emulator implementations: x/vt and the fast one.
var emuKinds = []emuKind{
	{"vt", func(c, r, sb int) Emulator { return NewVTEmulator(c, r, sb) }},
	{"fast", func(c, r, sb int) Emulator { return NewFastEmulator(c, r, sb) }},
}

// emuKindNamed returns the Emulator implementation called name.
func emuKindNamed(name string) emuKind {
	for _, k := range emuKinds {
		if k.name == name {
			return k
		}
	}
	panic("pty: no emulator kind " + name)
}

// forEachEmu runs f as the subtest name/kind for every Emulator
// implementation, or as the subtest kind when name is empty.
func forEachEmu(t *testing.T, name string, f func(t *testing.T, k emuKind)) {
	for _, k := range emuKinds {
		sub := k.name
		if name != "" {
			sub = name + "/" + k.name
		}
		t.Run(sub, func(t *testing.T) { f(t, k) })
	}
}

// newTestEmu returns an x/vt emulator with its Read drained into out.
func newTestEmu(t testing.TB, cols, rows, scrollback int) *testEmu {
	t.Helper()
	return emuKinds[0].start(t, cols, rows, scrollback)
}

// start returns an emulator of kind k with its Read drained into out.
func (k emuKind) start(t testing.TB, cols, rows, scrollback int) *testEmu {
	t.Helper()
	e := &testEmu{Emulator: k.new(cols, rows, scrollback), out: make(chan string, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := e.Read(buf)
			if n > 0 {
				e.out <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = e.Close()
		<-done
	})
	return e
}

// reply returns the next chunk the emulator produced for the program.
func (e *testEmu) reply(t testing.TB) string {
	t.Helper()
	select {
	case s := <-e.out:
		return s
	case <-time.After(waitTimeout):
		t.Fatal("no reply from the emulator")
		return ""
	}
}

// screenLines returns the emulator's rows as plain text, one per row.
func screenLines(e Emulator) []string {
	cols, rows := e.Size()
	out := make([]string, rows)
	for y := range rows {
		row := make([]Cell, cols)
		for x := range cols {
			row[x] = e.Cell(x, y)
		}
		out[y] = LineText(row)
	}
	return out
}
