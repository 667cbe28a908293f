package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignalWakesOnTheWrite: the wait returns once a process wrote to the
// pipe, whether it wrote before or after the wait began.
func TestSignalWakesOnTheWrite(t *testing.T) {
	for _, first := range []string{"writer", "waiter"} {
		path := filepath.Join(t.TempDir(), "ready")
		wait, err := Signal(path)
		if err != nil {
			t.Fatal(err)
		}
		w := exec.Command("sh", "-c", "echo > "+path)
		if first == "writer" {
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
		} else {
			go func() { _ = w.Run() }()
		}
		if err := wait(time.Minute); err != nil {
			t.Errorf("%s first: %v", first, err)
		}
		if first == "writer" {
			_ = w.Wait()
		}
	}
}

// TestWaitGoneWaitsForTheExit: WaitGone returns once the marked process
// has exited, and at once when none runs.
func TestWaitGoneWaitsForTheExit(t *testing.T) {
	marker := fmt.Sprintf("kws-proctest-%d", os.Getpid())
	// The marker is sh's $0, on its command line from the start; "; :"
	// keeps sh from replacing itself with sleep.
	cmd := exec.Command("sh", "-c", "sleep 600; :", marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if len(Marked(marker)) == 0 {
		t.Fatal("the marked process is not found")
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	go func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	if left, err := WaitGone(marker, time.Minute); err != nil || len(left) > 0 {
		t.Fatalf("WaitGone: %v %v", left, err)
	}
	<-done
}
