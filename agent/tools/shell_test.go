package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestShell(t *testing.T) {
	env := newEnv(t, map[string]string{"hello.txt": "hi there\n"})
	tests := []struct {
		name    string
		args    string
		isError bool
		want    []string
	}{
		{"stdout and exit", `{"command":"cat hello.txt"}`, false, []string{"STDOUT:\nhi there\nSTDERR:\nEXIT CODE: 0"}},
		{"stderr and code", `{"command":"echo oops >&2; exit 3"}`, false, []string{"STDOUT:\nSTDERR:\noops\nEXIT CODE: 3"}},
		{"no trailing newline", `{"command":"printf abc"}`, false, []string{"STDOUT:\nabc\nSTDERR:\n"}},
		{"runs in workspace", `{"command":"pwd"}`, false, []string{env.Workspace + "\n"}},
		{"bash features", `{"command":"for i in 1 2; do echo n$i; done | tr n m"}`, false, []string{"m1\nm2\n"}},
		{"no stdin", `{"command":"cat; echo done"}`, false, []string{"done"}},
		{"killed by signal", `{"command":"kill -9 $$"}`, false, []string{"EXIT CODE: 137"}},
		{"empty command", `{"command":"  "}`, true, []string{`"command" must not be empty`}},
		{"timeout too big", `{"command":"true","timeout_sec":5000}`, true, []string{`"timeout_sec" must be between 1 and 1800`}},
		{"timeout wrong type", `{"command":"true","timeout_sec":"10"}`, true, []string{`argument "timeout_sec" must be an integer`}},
		{"unknown field", `{"cmd":"ls"}`, true, []string{`unknown argument "cmd"`}},
	}
	for _, tt := range tests {
		res := call(t, env, "shell", tt.args)
		checkResult(t, res, tt.isError, tt.want...)
		if !tt.isError && res.Preview == "" {
			t.Errorf("%s: no preview", tt.name)
		}
	}
}

func TestShellPreview(t *testing.T) {
	sh, _ := ByName("shell")
	p := sh.(Previewer)
	got, err := p.Preview(newEnv(t, nil), []byte(`{"command":"go test ./..."}`))
	if err != nil || got != "go test ./..." {
		t.Errorf("Preview = %q, %v", got, err)
	}
	if _, err := p.Preview(nil, []byte(`{"command":""}`)); err == nil {
		t.Error("Preview accepted an empty command")
	}
}

// TestShellTimeoutKillsGroup checks that a timeout kills the command and
// the background processes it started.
func TestShellTimeoutKillsGroup(t *testing.T) {
	env := newEnv(t, nil)
	start := time.Now()
	res := call(t, env, "shell", `{"command":"sleep 60 & echo $! > bg.pid; echo started; sleep 60","timeout_sec":1}`)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %v", d)
	}
	checkResult(t, res, false, "started", "TIMED OUT after 1s", "EXIT CODE: 137")
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, env, "bg.pid")))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

func TestShellCancel(t *testing.T) {
	env := newEnv(t, nil)
	sh, _ := ByName("shell")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, err := sh.Run(ctx, env, json.RawMessage(`{"command":"echo before; sleep 60 & echo $! > bg.pid; sleep 60"}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Error("cancel did not stop the command promptly")
	}
	checkResult(t, res, false, "before", "CANCELLED")
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, env, "bg.pid")))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// waitGone fails the test unless process pid exits within a few seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		// A killed child of the reaped bash is reparented and reaped by
		// init; a zombie still answers kill(0), so look at its state.
		if st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("background process %d survived", pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func TestShellBoundsHugeOutput(t *testing.T) {
	env := newEnv(t, nil)
	res := call(t, env, "shell", `{"command":"head -c 100000000 /dev/zero | tr '\\0' a; echo; echo THE-END"}`)
	checkResult(t, res, false, "bytes cut", "of 100000009", "THE-END", "EXIT CODE: 0")
	if len(res.Text) > 2*(shellHead+shellTail)+1024 {
		t.Errorf("output is %d bytes", len(res.Text))
	}
}

func TestShellWorkspaceMissing(t *testing.T) {
	sh, _ := ByName("shell")
	_, err := sh.Run(context.Background(), &Env{}, json.RawMessage(`{"command":"true"}`))
	if !errors.Is(err, ErrNoWorkspace) {
		t.Errorf("err = %v, want ErrNoWorkspace", err)
	}
}
