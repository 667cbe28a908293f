package pty

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStartOptions(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name    string
		opts    Options
		command string
		want    string
	}{
		{"terminal type", Options{}, "echo term=$TERM", "term=xterm-256color"},
		{"truecolor", Options{}, "echo colorterm=$COLORTERM", "colorterm=truecolor"},
		{"working directory", Options{Dir: dir}, "echo dir=$PWD", "dir=" + dir},
		{"environment", Options{Env: []string{"KWS_TEST_VAR=42"}}, "echo var=$KWS_TEST_VAR", "var=42"},
		{"environment overrides TERM", Options{Env: []string{"TERM=dumb"}}, "echo term=$TERM", "term=dumb"},
		{"size", Options{Cols: 100, Rows: 30}, "echo size=$(tput cols)x$(tput lines)", "size=100x30"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startShell(t, tc.opts)
			run(t, s, tc.command)
			waitLine(t, s, tc.want)
		})
	}
}

func TestExitCodeAndNoLeaks(t *testing.T) {
	cases := []struct {
		name     string
		command  string
		wantCode int
	}{
		{"exit 3", "exit 3", 3},
		{"exit 0", "exit", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			s := startShell(t, Options{})
			run(t, s, tc.command)
			err := s.Wait()
			var exitErr *exec.ExitError
			switch {
			case tc.wantCode == 0 && err != nil:
				t.Fatalf("Wait = %v, want nil", err)
			case tc.wantCode != 0 && (!errors.As(err, &exitErr) || exitErr.ExitCode() != tc.wantCode):
				t.Fatalf("Wait = %v, want exit status %d", err, tc.wantCode)
			}
			if got := s.ExitCode(); got != tc.wantCode {
				t.Errorf("ExitCode = %d, want %d", got, tc.wantCode)
			}
			<-s.Done()
			if err := s.Close(); err != nil {
				t.Fatalf("Close after exit: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			for range s.Updates() {
			}
			checkNoLeak(t, before)
		})
	}
}

func TestCloseRunningTerminal(t *testing.T) {
	needBinary(t, "sleep", "sh")
	cases := []struct {
		name     string
		command  string
		survives bool
	}{
		{"idle prompt", "", false},
		{"foreground job", `sh -c 'echo job=$$; exec sleep 100'`, false},
		{"job ignoring hangup", `trap '' HUP; sh -c 'echo job=$$; exec sleep 100'`, false},
		// A process in its own session that ignores SIGHUP outlives the
		// pane, as under tmux; Close must not wait for it even though it
		// keeps the terminal open.
		{"detached process holding the terminal", `setsid sh -c 'trap "" HUP; echo job=$$; exec sleep 100' & wait`, true},
	}
	jobRe := regexp.MustCompile(`job=(\d+)`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			s := startShell(t, Options{})
			job := 0
			if tc.command != "" {
				run(t, s, tc.command)
				waitFor(t, "the job's pid", func() bool { return jobRe.MatchString(s.Text()) })
				job, _ = strconv.Atoi(jobRe.FindStringSubmatch(s.Text())[1])
				if !tc.survives {
					// The job prints its pid before the shell has made it
					// the terminal's foreground job; wait for that state,
					// which Close's hangup is about.
					waitForeground(t, s, "sleep")
				}
			}
			start := time.Now()
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if took := time.Since(start); took > hangupGrace+time.Second {
				t.Errorf("Close took %v", took)
			}
			select {
			case <-s.Done():
			default:
				t.Fatal("Done not closed after Close")
			}
			switch {
			case job > 0 && tc.survives:
				_ = syscall.Kill(job, syscall.SIGKILL)
			case job > 0:
				waitFor(t, "the job to end", func() bool { return processGone(job) })
			}
			if _, err := s.Write([]byte("x")); !errors.Is(err, ErrClosed) {
				t.Errorf("Write after Close = %v, want ErrClosed", err)
			}
			if err := s.SendKey(Key{Key: KeyEnter}); !errors.Is(err, ErrClosed) {
				t.Errorf("SendKey after Close = %v, want ErrClosed", err)
			}
			checkNoLeak(t, before)
		})
	}
}

// processGone reports whether pid no longer runs: it does not exist or is
// a zombie waiting for its new parent to reap it.
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

func TestStartError(t *testing.T) {
	if _, err := Start(Options{Shell: "/nonexistent/shell"}); err == nil {
		t.Fatal("Start of a missing shell succeeded")
	}
}

func TestUpdatesCoalescing(t *testing.T) {
	cases := []struct {
		name   string
		chunks int
		chunk  string
	}{
		{"ten thousand single bytes", 10000, "x"},
		{"ten thousand lines", 10000, "line\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startShell(t, Options{})
			// Let the notifications of the prompt go by.
			time.Sleep(3 * FrameInterval)
			for len(s.Updates()) > 0 {
				<-s.Updates()
			}

			count := 0
			stop := make(chan struct{})
			counted := make(chan int)
			go func() {
				for {
					select {
					case <-s.Updates():
						count++
					case <-stop:
						counted <- count
						return
					}
				}
			}()
			start := time.Now()
			for range tc.chunks {
				s.output([]byte(tc.chunk))
			}
			elapsed := time.Since(start)
			// The burst must end in one last notification after it.
			time.Sleep(3 * FrameInterval)
			close(stop)
			got := <-counted

			// One notification per started frame, one for the tail of the
			// burst and one for a mark left over from the prompt.
			maxFrames := int(elapsed/FrameInterval) + 3
			t.Logf("%d chunks in %v: %d notifications (frame budget %d)", tc.chunks, elapsed, got, maxFrames)
			if got < 1 {
				t.Fatal("no notification for the burst")
			}
			if got > maxFrames || got >= tc.chunks/10 {
				t.Errorf("%d notifications for %d chunks in %v, want at most %d", got, tc.chunks, elapsed, maxFrames)
			}
		})
	}
}

func TestUpdatesClosedByClose(t *testing.T) {
	s := startShell(t, Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(waitTimeout)
	for {
		select {
		case _, ok := <-s.Updates():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("Updates not closed after Close")
		}
	}
}

func TestJobReportsAForegroundProgram(t *testing.T) {
	needBinary(t, "sleep")
	s := startShell(t, Options{})
	run(t, s, "echo ready")
	waitLine(t, s, "ready")
	if j := s.Job(); j != 0 {
		t.Fatalf("Job() = %d at the prompt", j)
	}
	run(t, s, "sleep 30")
	waitForeground(t, s, "sleep")
	_ = s.SendKey(RuneKey('c', ModCtrl))
	waitFor(t, "the prompt again", func() bool { return s.Job() == 0 })
}

// TestUpdatesAfterInputAreNotPaced: output after input (a keystroke's
// echo) is notified at once, as an answer (Answered, once), while other
// output waits for the next frame. The frame here is an hour long, so a
// paced notification never comes.
func TestUpdatesAfterInputAreNotPaced(t *testing.T) {
	s := startShell(t, Options{})
	s.frame.Store(int64(time.Hour))
	// The frame starts with the next notification: the prompt's, or
	// this output's.
	s.output([]byte("x"))
	select {
	case <-s.Updates():
	case <-time.After(waitTimeout):
		t.Fatal("no notification for the first output")
	}
	if s.Answered() {
		t.Fatal("output before any input counted as an answer")
	}
	s.output([]byte("y"))
	if err := s.SendKey(Key{Key: KeyRune, Rune: 'z'}); err != nil {
		t.Fatal(err)
	}
	s.output([]byte("z"))
	select {
	case <-s.Updates():
	case <-time.After(waitTimeout):
		t.Fatal("output after a key waited for the next frame")
	}
	if !s.Answered() || s.Answered() {
		t.Fatal("the echo's notification was not one answer")
	}
}

// TestSynchronizedOutputIsShownWhole: a frame a program draws inside
// synchronized output (mode 2026) is held, and shown once the program ends
// it, whole.
func TestSynchronizedOutputIsShownWhole(t *testing.T) {
	for _, name := range []string{EmulatorFast, EmulatorVT} {
		t.Run(name, func(t *testing.T) {
			newEmu, err := EmulatorByName(name)
			if err != nil {
				t.Fatal(err)
			}
			s := startShell(t, Options{NewEmulator: newEmu})
			for len(s.Updates()) > 0 {
				<-s.Updates()
			}
			s.output([]byte("\x1b[?2026h\x1b[2J\x1b[Hhalf"))
			if !s.holding.Load() {
				t.Fatal("a frame inside synchronized output was not held")
			}
			s.output([]byte(" and the rest\x1b[?2026l"))
			deadline := time.After(waitTimeout)
			for !strings.Contains(s.Text(), "half and the rest") {
				select {
				case <-s.Updates():
				case <-deadline:
					t.Fatalf("the frame was not shown whole: %q", s.Text())
				}
			}
		})
	}
}
