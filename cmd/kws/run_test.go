package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/transcript"
)

// TestMain lets the test binary run kws itself as a child process:
// KWS_TEST_ARGS holds the JSON argument list. Like main, it takes the API
// keys out of its environment, sends the commands a running kws server
// runs to it, and prints a failed command's error.
func TestMain(m *testing.M) {
	if raw := os.Getenv("KWS_TEST_ARGS"); raw != "" {
		prepare()
		var args []string
		json.Unmarshal([]byte(raw), &args)
		root := newRoot()
		root.g.argv = args
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			if !errors.Is(err, errPrinted) {
				fmt.Fprintln(os.Stderr, errorLine(err))
			}
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const testKey = "sk-test-secret-never-on-disk-123456"

func runEnv(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("KWS_API_KEY", testKey)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
}

func TestRunStreamsAnswerAndKeepsKeyOffDisk(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t, providertest.TextStep("Paris is the capital of France."))
	data, ws := t.TempDir(), t.TempDir()
	out, err := run(t, data, nil, "run", "--base-url", srv.URL(), "--model", "gpt-4o-mini", "--workspace", ws, "What is the capital of France?")
	if err != nil || !strings.Contains(out, "Paris is the capital of France.") {
		t.Fatalf("run: %q %v", out, err)
	}
	if !srv.Requests()[0].Bearer {
		t.Fatal("the API key was not sent")
	}
	filepath.Walk(data, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), testKey) {
				t.Errorf("API key written to %s", path)
			}
		}
		return nil
	})
	list, err := transcript.List(data)
	if err != nil || len(list) != 1 || list[0].Status != "done" || list[0].Messages != 2 {
		t.Fatalf("sessions: %+v %v", list, err)
	}
	raw, _ := os.ReadFile(filepath.Join(transcript.Dir(data), list[0].ID, "run.json"))
	if !strings.Contains(string(raw), `"gpt-4o-mini"`) || !strings.Contains(string(raw), `"context_window"`) {
		t.Fatalf("run.json lacks the active profile: %s", raw)
	}
}

func TestRunJSONEvents(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t, providertest.TextStep("4"), providertest.TextStep("5"))
	data, ws := t.TempDir(), t.TempDir()
	out, err := run(t, data, nil, "--json", "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "2+2?")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	var last struct{ Type, Session, Status string }
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("not one JSON object per line: %q", line)
		}
		types[last.Type] = true
	}
	for _, want := range []string{"text_delta", "diet", "usage", "done", "cost"} {
		if !types[want] {
			t.Fatalf("no %s event in %q", want, out)
		}
	}
	// Before it, the cost line sums the calls' cache-weighted cost.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var cost struct {
		Type     string
		Calls    int
		Weighted float64
		Percent  float64 `json:"percent_of_naive"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-2]), &cost); err != nil || cost.Type != "cost" || cost.Calls != 1 || cost.Weighted <= 0 || cost.Percent != 100 {
		t.Fatalf("cost line %q: %+v %v", lines[len(lines)-2], cost, err)
	}
	// The last line names the session, which --resume takes.
	if id := onlySession(t, data).ID; last.Type != "session" || last.Session != id || last.Status != "done" {
		t.Fatalf("last line %+v, want type session, session %s, status done", last, id)
	}
	out, err = run(t, data, nil, "--json", "run", "--resume", last.Session, "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "2+3?")
	if err != nil || !strings.HasSuffix(out, `{"type":"session","session":"`+last.Session+`","status":"done"}`+"\n") {
		t.Fatalf("resume of the printed id: %q %v", out, err)
	}
}

// TestRunJSONNamesTheSessionOfAFailedRun: a run the model fails still
// ends with the session line, status error, so it can be resumed.
func TestRunJSONNamesTheSessionOfAFailedRun(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t, providertest.Step{Status: 401, ErrorBody: `{"error":{"message":"invalid api key","type":"auth"}}`})
	data := t.TempDir()
	out, err := run(t, data, nil, "--json", "run", "--base-url", srv.URL(), "--model", "m", "--workspace", t.TempDir(), "hi")
	want := `{"type":"session","session":"` + onlySession(t, data).ID + `","status":"error"}` + "\n"
	if err == nil || !strings.HasSuffix(out, want) {
		t.Fatalf("failed run: %q %v; want the last line %q", out, err, want)
	}
}

func TestRunFailsWithOneLineReason(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t, providertest.Step{Status: 401, ErrorBody: `{"error":{"message":"invalid api key","type":"auth"}}`})
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"run", "hi"}, "KWS_MODEL"},
		{"unreachable", []string{"run", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "hi"}, "unreachable"},
		{"bad key", []string{"run", "--base-url", srv.URL(), "--model", "m", "hi"}, "API key"},
	}
	for _, tc := range cases {
		t.Setenv("KWS_BASE_URL", "")
		_, err := run(t, t.TempDir(), nil, append([]string{"--data-dir", t.TempDir()}, append(tc.args, "--workspace", t.TempDir())...)...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code == 0 || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestResumeAfterSIGKILL kills a kws run while a tool call is running and
// resumes the session: nothing recorded is lost, the unfinished call is
// answered as interrupted, and the turn completes.
func TestResumeAfterSIGKILL(t *testing.T) {
	runEnv(t)
	data, ws := t.TempDir(), t.TempDir()
	marker := filepath.Join(ws, "started")
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: `{"command":"echo > started; exec sleep 5"}`}))
	args, _ := json.Marshal([]string{"--data-dir", data, "run", "--yes", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "start the slow job"})
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "KWS_TEST_ARGS="+string(args))
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("the child never started the tool")
		}
		time.Sleep(20 * time.Millisecond)
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	list, err := transcript.List(data)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions after kill: %+v %v", list, err)
	}
	id := list[0].ID
	srv.Push(providertest.TextStep("resumed and finished"))
	out, err := run(t, data, nil, "run", "--resume", id, "--base-url", srv.URL(), "--model", "m", "--workspace", ws)
	if err != nil || !strings.Contains(out, "resumed and finished") {
		t.Fatalf("resume: %q %v", out, err)
	}
	s, _, err := transcript.Open(data, id)
	if err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	s.Close()
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant" || !strings.Contains(msgs[2].Content, "interrupted") {
		t.Fatalf("transcript after resume: %v %q", roles, msgs[2].Content)
	}
	if _, err := run(t, data, nil, "run", "--resume", id, "--base-url", srv.URL(), "--model", "m", "--workspace", t.TempDir(), "more"); err == nil || !strings.Contains(err.Error(), "ran in") {
		t.Fatalf("resume in another workspace: %v", err)
	}
	last := srv.Requests()[len(srv.Requests())-1].Messages
	if last[len(last)-1].Role != "tool" || last[len(last)-1].ToolCallID != "c1" {
		t.Fatalf("resumed request does not continue the transcript: %+v", last[len(last)-1])
	}
}

func TestSessionsLs(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t, providertest.TextStep("ok"))
	data := t.TempDir()
	if _, err := run(t, data, nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", t.TempDir(), "first task title"); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, nil, "sessions", "ls")
	if err != nil || !strings.Contains(out, "first task title") || !strings.Contains(out, "done") {
		t.Fatalf("sessions ls: %q %v", out, err)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 {
		t.Fatalf("want a header and one session: %q", out)
	}
}

// TestInheritedDescriptorsStayOut runs kws run with a descriptor its
// parent left open (fd 3, not close-on-exec): the shell command the model
// asks for does not get it.
func TestInheritedDescriptorsStayOut(t *testing.T) {
	runEnv(t)
	data, ws := t.TempDir(), t.TempDir()
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: `{"command":"if test -e /proc/$$/fd/3; then echo fd3-open; else echo fd3-closed; fi"}`}),
		providertest.TextStep("listed"))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	args, _ := json.Marshal([]string{"--data-dir", data, "run", "--yes", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "list your descriptors"})
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "KWS_TEST_ARGS="+string(args))
	child.ExtraFiles = []*os.File{w} // fd 3 in the child, inheritable
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("kws run: %v\n%s", err, out)
	}
	msgs := srv.Requests()[1].Messages
	listing := msgs[len(msgs)-1].Content
	if !strings.Contains(listing, "fd3-closed") {
		t.Fatalf("the command's descriptors: %q", listing)
	}
}
