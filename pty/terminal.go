package pty

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// ErrClosed is returned for input sent to a closed terminal.
var ErrClosed = errors.New("pty: terminal closed")

// hangupGrace is how long Close waits after SIGHUP before it kills the
// process group.
const hangupGrace = time.Second

// Options configure a shell terminal. Zero values pick the defaults.
type Options struct {
	// Shell is the program to run; default $SHELL, else bash.
	Shell string
	// Args are the program's arguments.
	Args []string
	// Dir is the working directory; default the current one.
	Dir string
	// Notice, when set, is shown on the screen, a row per line of it,
	// before the program's output, such as why the shell was restarted.
	Notice string
	// Env holds KEY=value entries added to (and overriding) the inherited
	// environment, which already carries TERM=xterm-256color and
	// COLORTERM=truecolor.
	Env []string
	// Cols and Rows are the initial size; default 80 × 24.
	Cols, Rows int
	// Scrollback is the number of lines kept above the screen; default
	// DefaultScrollback.
	Scrollback int
	// NewEmulator builds the emulator; default NewFastEmulator (see
	// EmulatorByName).
	NewEmulator func(cols, rows, scrollback int) Emulator
	// Colors are the pane's default colours (its skin's base), which
	// answer the program's OSC 10 and 11 queries.
	Colors DefaultColors
	// Clipboard, when set, receives the text of the program's OSC 52
	// requests to set the clipboard (tmux's set-clipboard on); nil ignores
	// them. It is called on the output goroutine under the terminal's
	// lock, so it must not block or call the terminal.
	Clipboard func(text string)
	// Alert, when set, hears the program ask for the user: a bell ("")
	// or a desktop notification's text (Emulator.SetAlertHandler). It is
	// called as Clipboard is, so it must not block or call the terminal.
	Alert func(text string)
}

// Terminal is a program running on a pseudo-terminal with an emulator
// tracking its screen. All methods are safe for concurrent use.
type Terminal struct {
	mu  sync.Mutex // guards emu: every write, resize and read of the screen
	emu Emulator
	// cellW and cellH are the size of a cell in pixels, zero (unknown)
	// until SetCellSize; mu guards them.
	cellW, cellH int

	master *os.File
	cmd    *exec.Cmd
	input  inputQueue

	dirty   chan struct{}
	updates chan struct{}
	// typed is set by input to the program: the output that follows it
	// (an echo) is notified at once, not paced (see coalesce).
	typed atomic.Bool
	// answer is set by a notification that followed input (Answered).
	answer atomic.Bool
	// frame is the pacing interval, FrameInterval (tests lengthen it).
	frame atomic.Int64
	// holding is set while a frame drawn in synchronized output waits
	// (holdFrame).
	holding atomic.Bool
	stop    chan struct{}
	done    chan struct{}
	readEOF chan struct{}

	exitErr  error
	exitCode int

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup
}

// Start runs the shell described by opts on a new pseudo-terminal and
// starts feeding its output into the emulator.
func Start(opts Options) (*Terminal, error) {
	unignoreChildSignals()
	shell := opts.Shell
	if shell == "" {
		shell = os.Getenv("SHELL")
	}
	if shell == "" {
		shell = "bash"
	}
	cols, rows := opts.Cols, opts.Rows
	if cols <= 0 {
		cols = 80
	}
	if rows <= 0 {
		rows = 24
	}
	scrollback := opts.Scrollback
	if scrollback <= 0 {
		scrollback = DefaultScrollback
	}
	newEmu := opts.NewEmulator
	if newEmu == nil {
		newEmu, _ = EmulatorByName(EmulatorFast)
	}

	cmd := exec.Command(shell, opts.Args...)
	cmd.Dir = opts.Dir
	cmd.Env = append(childEnv(), opts.Env...)
	tty, err := pty.StartWithSize(cmd, winsize(cols, rows, 0, 0))
	if err != nil {
		return nil, fmt.Errorf("pty: start %s: %w", shell, err)
	}
	master, err := pollable(tty)
	if err != nil {
		_ = tty.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, err
	}

	s := &Terminal{
		emu:      newEmu(cols, rows, scrollback),
		master:   master,
		cmd:      cmd,
		dirty:    make(chan struct{}, 1),
		updates:  make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		readEOF:  make(chan struct{}),
		exitCode: -1,
	}
	s.emu.SetDefaultColors(opts.Colors)
	s.emu.SetClipboardHandler(opts.Clipboard)
	s.emu.SetAlertHandler(opts.Alert)
	s.input.init()
	s.show(opts.Notice)
	s.wg.Add(5)
	go s.waitExit()
	go s.readOutput()
	go s.drainReplies()
	go s.writeInput()
	s.frame.Store(int64(FrameInterval))
	go s.coalesce()
	return s, nil
}

// winsize returns the pty window size for cols × rows cells of cellW ×
// cellH pixels (zero when unknown), clamped to what the kernel structure
// holds.
func winsize(cols, rows, cellW, cellH int) *pty.Winsize {
	clamp := func(n int) uint16 { return uint16(min(n, math.MaxUint16)) }
	return &pty.Winsize{Cols: clamp(cols), Rows: clamp(rows), X: clamp(cols * cellW), Y: clamp(rows * cellH)}
}

// childEnv returns the inherited environment with TERM and COLORTERM set
// for the emulator and stale size variables removed. COLORTERM=truecolor
// is always set, as tmux does with RGB on: the emulator keeps 24-bit
// colours, and the screen library maps them to the outer terminal's
// palette when that lacks them, so a program that uses them always
// draws right.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "COLUMNS=") || strings.HasPrefix(kv, "LINES=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TERM=xterm-256color", "COLORTERM=truecolor")
}

// pollable returns a non-blocking, close-on-exec duplicate of the pty
// master and closes the original. creack/pty leaves the master in blocking
// mode, where a pending Read survives Close and its goroutine leaks; a
// non-blocking descriptor goes through Go's poller, so Close ends it.
func pollable(f *os.File) (*os.File, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, fmt.Errorf("pty: duplicate master: %w", errno)
	}
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		_ = syscall.Close(int(fd))
		return nil, fmt.Errorf("pty: make master non-blocking: %w", err)
	}
	nf := os.NewFile(fd, f.Name())
	if err := f.Close(); err != nil {
		_ = nf.Close()
		return nil, fmt.Errorf("pty: close original master: %w", err)
	}
	return nf, nil
}

// Done is closed when the shell process has exited.
func (s *Terminal) Done() <-chan struct{} {
	return s.done
}

// Wait blocks until the shell exits and returns nil for exit status 0, or
// an error wrapping *exec.ExitError otherwise.
func (s *Terminal) Wait() error {
	<-s.done
	return s.exitErr
}

// ExitCode returns the shell's exit status, or -1 while it runs or when a
// signal ended it.
func (s *Terminal) ExitCode() int {
	select {
	case <-s.done:
		return s.exitCode
	default:
		return -1
	}
}

// waitExit reaps the shell and records its exit status.
func (s *Terminal) waitExit() {
	defer s.wg.Done()
	err := s.cmd.Wait()
	if err != nil {
		s.exitErr = fmt.Errorf("pty: %s: %w", s.cmd.Path, err)
	}
	s.exitCode = s.cmd.ProcessState.ExitCode()
	close(s.done)
	s.markDirty()
}

// Close ends the terminal: SIGHUP to the shell's process group and to the
// job in the terminal's foreground, SIGKILL to both if the shell is still
// running after a grace period, then the pty and every
// goroutine of the terminal are shut down. It is idempotent and returns
// once all of them have ended; Updates is closed afterwards.
func (s *Terminal) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.closeErr = s.shutdown()
	})
	return s.closeErr
}

// shutdown does the work of Close.
func (s *Terminal) shutdown() error {
	select {
	case <-s.done:
	default:
		groups := []int{s.cmd.Process.Pid}
		if fg := foregroundGroup(s.master); fg > 0 && fg != groups[0] {
			groups = append(groups, fg)
		}
		signalGroups(groups, syscall.SIGHUP)
		signalGroups(groups, syscall.SIGCONT)
		select {
		case <-s.done:
		case <-time.After(hangupGrace):
			signalGroups(groups, syscall.SIGKILL)
			<-s.done
		}
	}
	err := s.master.Close()
	<-s.readEOF
	s.mu.Lock()
	emuErr := s.emu.Close()
	s.mu.Unlock()
	close(s.stop)
	s.wg.Wait()
	close(s.updates)
	if err != nil {
		return fmt.Errorf("pty: close master: %w", err)
	}
	if emuErr != nil {
		return fmt.Errorf("pty: close emulator: %w", emuErr)
	}
	return nil
}

// signalGroups sends sig to every process group in groups.
func signalGroups(groups []int, sig syscall.Signal) {
	for _, g := range groups {
		_ = syscall.Kill(-g, sig)
	}
}
