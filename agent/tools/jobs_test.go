package tools

import (
	"fmt"
	"os"
	"path/filepath"
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

// jobEnded waits until job id has ended and returns its output.
func jobEnded(t *testing.T, env *Env, id int) string {
	t.Helper()
	j, err := env.Jobs.find(id)
	if err != nil {
		t.Fatal(err)
	}
	<-j.done
	out, err := env.Jobs.output(id)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startMarked is a script that starts sleep under the name marker in the
// background and, once it runs as that, prints "ready-42" and says so
// through a named pipe in the workspace; the returned wait blocks until
// it has (a loaded machine may take its time).
func startMarked(t *testing.T, env *Env, marker string) (script string, wait func()) {
	t.Helper()
	ready, err := proctest.Signal(filepath.Join(env.Workspace, marker+".ready"))
	if err != nil {
		t.Fatal(err)
	}
	return `(exec -a ` + marker + ` sleep 600) & until grep -q ` + marker + ` /proc/$!/cmdline 2>/dev/null; do :; done; echo ready-$((6*7)); echo > ` + marker + `.ready`,
		func() {
			t.Helper()
			if err := ready(time.Minute); err != nil {
				t.Fatal(err)
			}
		}
}

func TestBackgroundJobRunsOnAndStops(t *testing.T) {
	env, kept := jobsEnv(t)
	marker := fmt.Sprintf("kws-job-%d", os.Getpid())
	script, ready := startMarked(t, env, marker)
	res := call(t, env, "shell", map[string]any{"command": script + "; wait", "background": true})
	checkResult(t, res, false, "started background job 1")
	ready()
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
	out := jobEnded(t, env, 1)
	if !strings.Contains(out, "job 1 (exited 3)") || !strings.Contains(out, "bye") {
		t.Fatalf("ended job:\n%s", out)
	}
	marker := fmt.Sprintf("kws-agent-job-%d", os.Getpid())
	script, ready := startMarked(t, env, marker)
	call(t, env, "shell", map[string]any{"command": script + "; wait", "background": true})
	ready()
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
