package tools

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/internal/proctest"
	"github.com/kwsdev/kws/sandbox"
)

// jobsEnv is newEnv with background jobs, a vault that records what Keep
// stores, and, where this machine has one, the sandbox.
func jobsEnv(t *testing.T) (*Env, *sync.Map) {
	t.Helper()
	env := newEnv(t, nil)
	kept := &sync.Map{}
	env.Keep = func(kind string, data []byte) (string, error) {
		id := fmt.Sprintf("ctx:%012x", len(data))
		kept.Store(id, kind+":"+string(data))
		return id, nil
	}
	env.Jobs = NewJobs(nil)
	t.Cleanup(env.Jobs.Close)
	if _, err := sandbox.Available(); err == nil {
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		env.Sandbox = &sandbox.Policy{}
	}
	return env, kept
}

// waitJob waits until job id's output holds want or, with want empty,
// until it has ended; a loaded machine may take its time.
func waitJob(t *testing.T, env *Env, id int, want string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := env.Jobs.output(id)
		if err != nil {
			t.Fatal(err)
		}
		ended := !env.Jobs.List()[id-1].Running
		if want != "" && strings.Contains(out, want) || want == "" && ended {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: waited a minute for %q:\n%s", id, want, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startMarked is a script that starts sleep under the name marker in the
// background and prints "ready-42" once it runs as that.
func startMarked(marker string) string {
	return `(exec -a ` + marker + ` sleep 600) & until grep -q ` + marker + ` /proc/$!/cmdline 2>/dev/null; do :; done; echo ready-$((6*7))`
}

func TestBackgroundJobRunsOnAndStops(t *testing.T) {
	env, kept := jobsEnv(t)
	marker := fmt.Sprintf("kws-job-%d", os.Getpid())
	res := call(t, env, "shell", map[string]any{"command": startMarked(marker) + "; wait", "background": true})
	checkResult(t, res, false, "started background job 1")
	waitJob(t, env, 1, "ready-42")
	if len(proctest.Marked(marker)) == 0 {
		t.Fatal("the job's process is not running")
	}
	listed := call(t, env, "jobs", `{"action":"list"}`)
	checkResult(t, listed, false, "job 1 (running")
	stopped := call(t, env, "jobs", `{"action":"stop","id":1}`)
	checkResult(t, stopped, false, "job 1 (stopped)")
	if left := proctest.Marked(marker); len(left) > 0 {
		t.Fatalf("processes outlived the stopped job: %v", left)
	}
	out := call(t, env, "jobs", `{"action":"output","id":1}`)
	checkResult(t, out, false, "whole output in the vault: ctx:", "ready-42")
	id := strings.Fields(strings.SplitN(out.Text, "vault: ", 2)[1])[0]
	if v, ok := kept.Load(id); !ok || v != "job:ready-42\n" {
		t.Fatalf("the vault holds %q for %s", v, id)
	}
}

func TestBackgroundJobEndsByItselfAndWithTheAgent(t *testing.T) {
	env, _ := jobsEnv(t)
	call(t, env, "shell", map[string]any{"command": "echo bye; exit 3", "background": true})
	out := waitJob(t, env, 1, "")
	if !strings.Contains(out, "job 1 (exited 3)") || !strings.Contains(out, "bye") {
		t.Fatalf("ended job:\n%s", out)
	}
	marker := fmt.Sprintf("kws-agent-job-%d", os.Getpid())
	call(t, env, "shell", map[string]any{"command": startMarked(marker) + "; wait", "background": true})
	waitJob(t, env, 2, "ready-42")
	env.Jobs.Close()
	if left := proctest.Marked(marker); len(left) > 0 {
		t.Fatalf("a job outlived its agent: %v", left)
	}
	res := call(t, env, "shell", map[string]any{"command": "true", "background": true})
	checkResult(t, res, true, "the agent is stopping")
	if res := call(t, env, "jobs", `{"action":"output","id":9}`); !res.IsError {
		t.Fatalf("output of no job: %+v", res)
	}
}
