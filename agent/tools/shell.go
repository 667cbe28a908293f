package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kwsdev/kws/sandbox"
)

//go:embed shell.md
var shellDoc string

const (
	defaultShellTimeout = 120
	maxShellTimeout     = 1800
	// Each stream keeps its first shellHead and last shellTail bytes.
	shellHead = 16 << 10
	shellTail = 48 << 10
	// shellWaitDelay bounds the wait for output pipes held open by
	// background processes after the command itself has ended.
	shellWaitDelay = 2 * time.Second
)

type shellTool struct{ spec }

type shellArgs struct {
	Command    string `json:"command"`
	TimeoutSec int    `json:"timeout_sec"`
	Network    bool   `json:"network"`
	Background bool   `json:"background"`
}

// NetworkPermission is the permission a shell command that asks for the
// network needs: the user grants it apart from "shell", in the dialog or
// in their own config, never from a workspace's.
const NetworkPermission = "shell.network"

func newShell() Tool {
	return shellTool{spec{name: "shell", doc: shellDoc, access: Executes, schema: `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "bash command line, run with bash -c in the workspace root"},
    "timeout_sec": {"type": "integer", "minimum": 1, "maximum": 1800, "description": "seconds before the command is killed (default 120)"},
    "network": {"type": "boolean", "description": "run with the host's network (downloads, remote APIs); the user must approve it. Without it the command has a loopback of its own and no other network"},
    "background": {"type": "boolean", "description": "run as a background job (a dev server, a watcher) and return at once; see the jobs tool"}
  },
  "required": ["command"],
  "additionalProperties": false
}`}}
}

// parse validates the arguments.
func (shellTool) parse(raw []byte) (shellArgs, time.Duration, error) {
	var a shellArgs
	if err := decodeArgs(raw, &a); err != nil {
		return a, 0, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return a, 0, errors.New(`"command" must not be empty`)
	}
	secs, err := intArg("timeout_sec", a.TimeoutSec, defaultShellTimeout, 1, maxShellTimeout)
	if err != nil {
		return a, 0, err
	}
	return a, time.Duration(secs) * time.Second, nil
}

// Preview returns the command line the user approves, saying so when it
// asks for the network.
func (t shellTool) Preview(_ *Env, raw []byte) (string, error) {
	a, _, err := t.parse(raw)
	if err != nil {
		return "", fmt.Errorf("shell: %w", err)
	}
	var marks []string
	if a.Network {
		marks = append(marks, "[with network access]")
	}
	if a.Background {
		marks = append(marks, "[background job]")
	}
	return strings.Join(append(marks, a.Command), " "), nil
}

// Permission is NetworkPermission for a command that asks for the
// network, "shell" for the rest.
func (t shellTool) Permission(raw []byte) string {
	if a, _, err := t.parse(raw); err == nil && a.Network {
		return NetworkPermission
	}
	return t.name
}

// Run executes the command with bash -c in the workspace root, in its own
// session and process group, confined by env.Sandbox when it is set and
// with git configuration that runs no program the repository names. On
// timeout or cancellation the whole group is killed; a cancelled call
// returns its partial output together with the context's error.
func (t shellTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	a, timeout, err := t.parse(raw)
	if err != nil {
		return errResult("shell: %v", err), nil
	}
	root, err := env.root()
	if err != nil {
		return Result{}, fmt.Errorf("shell: %w", err)
	}
	if a.Background {
		if env.Jobs == nil {
			return errResult("shell: this agent cannot run background jobs"), nil
		}
		info, err := env.Jobs.start(env, root, a)
		if err != nil {
			return errResult("shell: %v", err), nil
		}
		return Result{Preview: a.Command, Text: fmt.Sprintf("started background job %d: %s\nIt runs until it ends, you stop it (jobs with action \"stop\"), the user stops it, or this agent stops. Read its output with jobs (action \"output\", id %d).", info.ID, a.Command, info.ID)}, nil
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, start, cleanup, killed, err := shellProcess(runCtx, env, root, a)
	if err != nil {
		return Result{}, fmt.Errorf("shell: %w", err)
	}
	defer cleanup()
	stdout, stderr := NewHeadTail(shellHead, shellTail), NewHeadTail(shellHead, shellTail)
	spools, err := newSpools(env.Keep != nil)
	if err != nil {
		return Result{}, fmt.Errorf("shell: %w", err)
	}
	defer spools.remove()
	cmd.Stdout, cmd.Stderr = spools.tee(0, stdout), spools.tee(1, stderr)
	runErr := start()
	if runErr == nil {
		runErr = cmd.Wait()
	}
	if cmd.ProcessState == nil {
		return Result{}, fmt.Errorf("shell: start bash: %w", runErr)
	}
	var b strings.Builder
	var views [2]string
	for i, s := range []struct {
		name string
		out  *HeadTail
	}{{"STDOUT", stdout}, {"STDERR", stderr}} {
		note, view, kept := spools.keep(env, i, s.name, s.out)
		b.WriteString(s.name + note + ":\n")
		if !kept {
			view = s.out.String()
		}
		views[i] = strings.ToValidUTF8(view, "\uFFFD")
		writeStream(&b, view)
	}
	code := ExitCode(cmd.ProcessState)
	fmt.Fprintf(&b, "EXIT CODE: %d", code)
	if errors.Is(runErr, exec.ErrWaitDelay) {
		fmt.Fprintf(&b, "\n(background processes kept the output open; stopped reading %s after the command ended)", shellWaitDelay)
	}
	res := Result{Preview: a.Command, Response: map[string]any{"stdout": views[0], "stderr": views[1], "exit_code": code,
		"interrupted": ctx.Err() != nil || killed.Load(), "isImage": false}}
	switch {
	case ctx.Err() != nil:
		b.WriteString("\nCANCELLED")
		res.Text = b.String()
		return res, fmt.Errorf("shell: %w", ctx.Err())
	case killed.Load():
		fmt.Fprintf(&b, "\nTIMED OUT after %ds", int(timeout/time.Second))
	}
	res.Text = b.String()
	return res, nil
}

// Command prepares line to run as the shell tool runs its commands (see
// shellProcess), for other commands kws runs on an agent's behalf, such as
// its hooks: bash -c line in root, confined by env.Sandbox when it is set
// (with the host's network when network is true), in a session and
// process group of its own that ctx's end kills (killed then reports
// true), without the API key variables. Call start instead of cmd.Start,
// and cleanup once it has ended.
func Command(ctx context.Context, env *Env, root, line string, network bool) (cmd *exec.Cmd, start func() error, cleanup func(), killed *atomic.Bool, err error) {
	return shellProcess(ctx, env, root, shellArgs{Command: line, Network: network})
}

// shellProcess returns shellCommand's command ready to start: its
// environment without the API keys and with git's reset configuration,
// its own session, and, when ctx ends, its whole process group killed
// (killed then reports true).
func shellProcess(ctx context.Context, env *Env, root string, a shellArgs) (cmd *exec.Cmd, start func() error, cleanup func(), killed *atomic.Bool, err error) {
	cmd, start, cleanup, err = shellCommand(ctx, env, root, a)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cmd.Env = childEnv(cmd.Environ(), env.HideEnv)
	cmd.Env = append(append(cmd.Env, sandbox.GitEnv(cmd.Env)...), "PAGER=cat")
	// Setsid gives the command its own process group and no controlling
	// terminal, so it cannot read from or draw on the user's terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	killed = new(atomic.Bool)
	cmd.Cancel = func() error {
		killed.Store(true)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = shellWaitDelay
	return cmd, start, cleanup, killed, nil
}

// shellCommand returns bash -c a.Command in root and the function that
// starts it: confined by env.Sandbox when it is set (with the network when
// a asks for it, and root's git metadata read-only), with a private temp
// dir that cleanup removes.
func shellCommand(ctx context.Context, env *Env, root string, a shellArgs) (cmd *exec.Cmd, start func() error, cleanup func(), err error) {
	if env.Sandbox == nil {
		cmd = exec.CommandContext(ctx, "bash", "-c", a.Command)
		cmd.Dir = root
		return cmd, cmd.Start, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "kws-shell-")
	if err != nil {
		return nil, nil, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	p := *env.Sandbox
	p.Workspace, p.Temp = root, tmp
	p.Network = p.Network || a.Network
	ro, forbidden := sandbox.GitMetadata(root)
	p.ReadOnly, p.Forbidden = append(slices.Clone(p.ReadOnly), ro...), append(slices.Clone(p.Forbidden), forbidden...)
	if cmd, err = sandbox.Command(ctx, p, "bash", "-c", a.Command); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	return cmd, func() error { return sandbox.Start(cmd, p) }, cleanup, nil
}

// childEnv is environ without the variables that hold API keys, so a
// command (or a prompt injection that runs one) cannot send them out.
func childEnv(environ, hide []string) []string {
	hidden := map[string]bool{"KWS_API_KEY": true, "OPENAI_API_KEY": true}
	for _, h := range hide {
		hidden[h] = true
	}
	out := environ[:0:0]
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !hidden[name] {
			out = append(out, kv)
		}
	}
	return out
}

// writeStream appends one stream's text, ending it with a newline.
func writeStream(b *strings.Builder, s string) {
	b.WriteString(strings.ToValidUTF8(s, "\uFFFD"))
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// ExitCode returns a command's exit status, 128+n for a death by signal n
// as bash reports it.
func ExitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
