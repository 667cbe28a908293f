package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:embed jobs.md
var jobsDoc string

// maxJobs bounds the jobs one agent runs at once.
const maxJobs = 8

// Jobs are one agent's background shell commands: started by shell with
// background set, listed, read and stopped with the jobs tool or by the
// user, and all stopped when the agent stops. Each runs confined as any
// shell command, in a jail of its own where there is one, so stopping it
// ends every process it started. A job's whole output goes to the vault
// when it ends. Jobs is safe for concurrent use.
type Jobs struct {
	mu      sync.Mutex
	seq     int
	jobs    []*job
	closed  bool
	changed func()
}

// job is one background command.
type job struct {
	info   JobInfo
	cancel context.CancelFunc
	done   chan struct{}
	out    *HeadTail
	spool  *os.File
}

// JobInfo is what the user and the model see of a job.
type JobInfo struct {
	ID      int       `json:"id"`
	Command string    `json:"command"`
	Started time.Time `json:"started"`
	Running bool      `json:"running"`
	// Exit is the exit code of a job that ended (128+n for signal n);
	// Stopped says it was stopped.
	Exit    int       `json:"exit"`
	Stopped bool      `json:"stopped,omitempty"`
	Ended   time.Time `json:"ended,omitzero"`
	// Kept is the vault id of an ended job's whole output, KeepErr why it
	// could not be kept.
	Kept    string `json:"kept,omitempty"`
	KeepErr string `json:"keep_error,omitempty"`
}

// String is the job in one line: id, state, command.
func (j JobInfo) String() string {
	state := "running " + time.Since(j.Started).Round(time.Second).String()
	switch {
	case j.Running:
	case j.Stopped:
		state = "stopped"
	default:
		state = fmt.Sprintf("exited %d", j.Exit)
	}
	return fmt.Sprintf("job %d (%s): %s", j.ID, state, j.Command)
}

// NewJobs returns an agent's jobs; changed, when set, is called (from any
// goroutine) after a job starts or ends.
func NewJobs(changed func()) *Jobs { return &Jobs{changed: changed} }

// notify calls changed.
func (js *Jobs) notify() {
	if js.changed != nil {
		js.changed()
	}
}

// start runs a in root as a job.
func (js *Jobs) start(env *Env, root string, a shellArgs) (JobInfo, error) {
	js.mu.Lock()
	running := 0
	for _, j := range js.jobs {
		if j.info.Running {
			running++
		}
	}
	closed := js.closed
	js.mu.Unlock()
	if closed {
		return JobInfo{}, errors.New("the agent is stopping")
	}
	if running >= maxJobs {
		return JobInfo{}, fmt.Errorf("%d background jobs already run; stop one first", running)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd, start, cleanup, _, err := shellProcess(ctx, env, root, a)
	if err != nil {
		cancel()
		return JobInfo{}, err
	}
	spool, err := os.CreateTemp("", "kws-job-*.out")
	if err != nil {
		cancel()
		cleanup()
		return JobInfo{}, err
	}
	os.Remove(spool.Name()) // kept open; nothing else needs its name
	j := &job{cancel: cancel, done: make(chan struct{}), out: NewHeadTail(shellHead, shellTail), spool: spool}
	w := io.MultiWriter(j.out, spool)
	cmd.Stdout, cmd.Stderr = w, w
	if err := start(); err != nil {
		cancel()
		cleanup()
		spool.Close()
		return JobInfo{}, fmt.Errorf("start bash: %w", err)
	}
	js.mu.Lock()
	js.seq++
	j.info = JobInfo{ID: js.seq, Command: a.Command, Started: time.Now(), Running: true}
	js.jobs = append(js.jobs, j)
	info := j.info
	js.mu.Unlock()
	go func() {
		cmd.Wait()
		cleanup()
		kept, keepErr := keepJobOutput(env, spool)
		spool.Close()
		js.mu.Lock()
		j.info.Running, j.info.Ended, j.info.Kept = false, time.Now(), kept
		if cmd.ProcessState != nil {
			j.info.Exit = ExitCode(cmd.ProcessState)
		}
		if keepErr != nil {
			j.info.KeepErr = keepErr.Error()
		}
		js.mu.Unlock()
		close(j.done)
		js.notify()
	}()
	js.notify()
	return info, nil
}

// keepJobOutput stores the whole output spooled in f in the vault.
func keepJobOutput(env *Env, f *os.File) (string, error) {
	if env.Keep == nil {
		return "", nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	data, err := io.ReadAll(f)
	if err != nil || len(data) == 0 {
		return "", err
	}
	return env.Keep("job", data)
}

// List returns every job of this agent, oldest first.
func (js *Jobs) List() []JobInfo {
	js.mu.Lock()
	defer js.mu.Unlock()
	out := make([]JobInfo, len(js.jobs))
	for i, j := range js.jobs {
		out[i] = j.info
	}
	return out
}

// Running returns the jobs that still run.
func (js *Jobs) Running() []JobInfo {
	return slices.DeleteFunc(js.List(), func(j JobInfo) bool { return !j.Running })
}

// find returns the job id.
func (js *Jobs) find(id int) (*job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	for _, j := range js.jobs {
		if j.info.ID == id {
			return j, nil
		}
	}
	return nil, fmt.Errorf("no job %d", id)
}

// Stop stops job id and every process it started, and waits until it has
// ended and its output is kept.
func (js *Jobs) Stop(id int) (JobInfo, error) {
	j, err := js.find(id)
	if err != nil {
		return JobInfo{}, err
	}
	js.mu.Lock()
	if j.info.Running {
		j.info.Stopped = true
	}
	js.mu.Unlock()
	j.cancel()
	<-j.done
	js.mu.Lock()
	defer js.mu.Unlock()
	return j.info, nil
}

// StopRunning stops every running job and waits until each has ended and
// its output is kept; it returns how many it stopped.
func (js *Jobs) StopRunning() int {
	js.mu.Lock()
	var ids []int
	for _, j := range js.jobs {
		if j.info.Running {
			ids = append(ids, j.info.ID)
		}
	}
	js.mu.Unlock()
	for _, id := range ids {
		js.Stop(id)
	}
	return len(ids)
}

// Close stops every job and refuses new ones: the agent is stopping.
func (js *Jobs) Close() {
	js.mu.Lock()
	js.closed = true
	js.mu.Unlock()
	js.StopRunning()
}

// output is the job's output so far as the model reads it.
func (js *Jobs) output(id int) (string, error) {
	j, err := js.find(id)
	if err != nil {
		return "", err
	}
	js.mu.Lock()
	info := j.info
	js.mu.Unlock()
	var b strings.Builder
	b.WriteString(info.String() + "\n")
	switch {
	case info.Kept != "":
		fmt.Fprintf(&b, "whole output in the vault: %s (%d bytes); ctx_get reads it\n", info.Kept, j.out.Total())
	case info.KeepErr != "":
		fmt.Fprintf(&b, "the whole output could not be kept: %s\n", info.KeepErr)
	}
	b.WriteString("OUTPUT:\n")
	writeStream(&b, j.out.String())
	return b.String(), nil
}

// jobsTool lists, reads and stops the agent's background jobs.
type jobsTool struct{ spec }

type jobsArgs struct {
	Action string `json:"action"`
	ID     int    `json:"id"`
}

func newJobs() Tool {
	return jobsTool{spec{name: "jobs", doc: jobsDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["list", "output", "stop"], "description": "list the jobs, read one's output, or stop one"},
    "id": {"type": "integer", "minimum": 1, "description": "the job, for output and stop"}
  },
  "required": ["action"],
  "additionalProperties": false
}`}}
}

// Run answers one action on the agent's jobs.
func (jobsTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a jobsArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("jobs: %v", err), nil
	}
	if env.Jobs == nil {
		return errResult("jobs: this agent runs no background jobs"), nil
	}
	switch a.Action {
	case "list":
		jobs := env.Jobs.List()
		if len(jobs) == 0 {
			return Result{Text: "no background jobs; start one with shell and background true"}, nil
		}
		lines := make([]string, len(jobs))
		for i, j := range jobs {
			lines[i] = j.String()
		}
		return Result{Text: strings.Join(lines, "\n")}, nil
	case "output":
		text, err := env.Jobs.output(a.ID)
		if err != nil {
			return errResult("jobs: %v", err), nil
		}
		return Result{Text: text}, nil
	case "stop":
		info, err := env.Jobs.Stop(a.ID)
		if err != nil {
			return errResult("jobs: %v", err), nil
		}
		return Result{Text: info.String()}, nil
	}
	return errResult(`jobs: "action" must be list, output or stop, not %q`, a.Action), nil
}
