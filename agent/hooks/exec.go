package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/config"
)

// command is one hook command a call runs.
type command struct {
	config.HookCommand
	// toolName is what its tool_name says: the kws name, or the Claude
	// Code name its matcher used.
	toolName string
	// workspace says it comes from the workspace's config.
	workspace bool
}

// result is what one command did.
type result struct {
	cmd            command
	exit           int
	stdout, stderr string
	// err is a command that could not start; timedOut, one killed at its
	// timeout; cancelled, one killed because the agent's turn ended.
	err                 error
	timedOut, cancelled bool
}

// outputCap bounds what kws reads of a hook's stdout and of its stderr;
// the rest is read and dropped, so a flood cannot stall the hook.
const outputCap = 64 << 10

// runAll runs cmds at once and merges their results in their order.
func (r *Runner) runAll(ctx context.Context, call Call, cmds []command) Outcome {
	results := make([]result, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.exec(ctx, call, c)
		}()
	}
	wg.Wait()
	var out Outcome
	for _, res := range results {
		out.add(call.Event, res)
	}
	return out
}

// input is the JSON object c reads on stdin: the fields every event has,
// then call's own.
func (r *Runner) input(call Call, c command) ([]byte, error) {
	m := map[string]any{"session_id": r.opts.SessionID, "transcript_path": r.opts.TranscriptPath, "cwd": r.opts.Dir,
		"hook_event_name": call.Event, "permission_mode": "default", "agent": r.opts.Agent}
	if r.opts.Role != "" {
		m["agent_type"] = r.opts.Role
	}
	for k, v := range call.Fields {
		m[k] = v
	}
	if call.Tool {
		m["tool_name"] = c.toolName
	}
	return json.Marshal(m)
}

// exec runs c with bash -c in the agent's directory and sandbox, the
// event on its stdin, until it exits or its timeout kills its whole
// process group.
func (r *Runner) exec(ctx context.Context, call Call, c command) result {
	in, err := r.input(call, c)
	if err != nil {
		return result{cmd: c, err: err}
	}
	runCtx, cancel := context.WithTimeout(ctx, c.TimeoutOrDefault())
	defer cancel()
	env := &tools.Env{Sandbox: r.opts.Sandbox, HideEnv: r.opts.HideEnv}
	cmd, start, cleanup, killed, err := tools.Command(runCtx, env, r.opts.Dir, c.Command, r.opts.Network)
	if err != nil {
		return result{cmd: c, err: err}
	}
	defer cleanup()
	cmd.Env = append(cmd.Env, "CLAUDE_PROJECT_DIR="+r.opts.Dir, "KWS_PROJECT_DIR="+r.opts.Dir, "KWS_HOOK_EVENT="+call.Event)
	stdout, stderr := tools.NewHeadTail(outputCap, 0), tools.NewHeadTail(outputCap, 0)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), stdout, stderr
	if err := start(); err != nil {
		return result{cmd: c, err: err}
	}
	_ = cmd.Wait()
	res := result{cmd: c, exit: tools.ExitCode(cmd.ProcessState),
		stdout: strings.ToValidUTF8(stdout.String(), "\uFFFD"), stderr: strings.ToValidUTF8(stderr.String(), "\uFFFD")}
	if killed.Load() {
		res.cancelled = ctx.Err() != nil
		res.timedOut = !res.cancelled && errors.Is(runCtx.Err(), context.DeadlineExceeded)
	}
	return res
}
