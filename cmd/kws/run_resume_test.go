package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/transcript"
)

// onlySession returns the one session under data.
func onlySession(t *testing.T, data string) transcript.Summary {
	t.Helper()
	list, err := transcript.List(data)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %+v %v", list, err)
	}
	return list[0]
}

// TestResumeRefusesARunningSession resumes a session that another kws run
// (a child process, waiting on the model) still has open: the resume
// fails at once naming the child's pid, and leaves the session running.
func TestResumeRefusesARunningSession(t *testing.T) {
	runEnv(t)
	data, ws := t.TempDir(), t.TempDir()
	srv := providertest.New(t, providertest.Step{Delay: time.Minute})
	args, _ := json.Marshal([]string{"--data-dir", data, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "a slow task"})
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "KWS_TEST_ARGS="+string(args))
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		child.Process.Kill()
		child.Wait()
	}()
	srv.WaitRequests(1, time.Minute) // the child is waiting on the model
	before := onlySession(t, data)
	_, err := run(t, data, nil, "run", "--resume", before.ID, "--base-url", srv.URL(), "--model", "m", "--workspace", ws)
	want := fmt.Sprintf("session %s is running (pid %d)", before.ID, child.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("resume of a running session: %v; want %q", err, want)
	}
	if after := onlySession(t, data); after.Status != transcript.StatusRunning || !after.Updated.Equal(before.Updated) {
		t.Errorf("the refused resume changed the session: %+v, was %+v", after, before)
	}
}

// TestResumeRefusesWhatCannotBeResumed covers sessions with nothing to
// continue: one killed before its first record must not turn "done", and
// one whose transcript was emptied must not resume as a blank session.
func TestResumeRefusesWhatCannotBeResumed(t *testing.T) {
	runEnv(t)
	tests := []struct {
		name    string
		prepare func(t *testing.T, data, ws, url string) string
		want    []string
		status  string
	}{
		{"killed before its first record", func(t *testing.T, data, ws, _ string) string {
			// What a run leaves when killed between creating its session
			// and recording the task: a titled, running, empty session.
			s, err := transcript.Create(data, ws)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SetSummary(func(sum *transcript.Summary) { sum.Title = "lost task" }); err != nil {
				t.Fatal(err)
			}
			s.Close()
			return s.ID()
		}, []string{"nothing to resume", `"lost task"`}, transcript.StatusInterrupted},
		{"emptied transcript", func(t *testing.T, data, ws, url string) string {
			if _, err := run(t, data, nil, "run", "--base-url", url, "--model", "m", "--workspace", ws, "first"); err != nil {
				t.Fatal(err)
			}
			id := onlySession(t, data).ID
			if err := os.Truncate(filepath.Join(transcript.Dir(data), id, transcript.RawFile), 0); err != nil {
				t.Fatal(err)
			}
			return id
		}, []string{"raw.jsonl is empty but summary.json records 2 messages", "nothing was changed"}, transcript.StatusDone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, ws := t.TempDir(), t.TempDir()
			srv := providertest.New(t, providertest.TextStep("answer"), providertest.TextStep("answer"))
			id := tt.prepare(t, data, ws, srv.URL())
			calls := len(srv.Requests())
			_, err := run(t, data, nil, "run", "--resume", id, "--base-url", srv.URL(), "--model", "m", "--workspace", ws)
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("resume: %v; want %q", err, w)
				}
			}
			if sum := onlySession(t, data); sum.Status != tt.status {
				t.Errorf("status after the refused resume = %q, want %q", sum.Status, tt.status)
			}
			if len(srv.Requests()) != calls {
				t.Error("the refused resume called the model")
			}
		})
	}
}

// TestResumeUnknownSession resumes an id the data dir has no session of:
// the error names the id and the sessions folder and points to kws
// sessions ls, not a raw file error.
func TestResumeUnknownSession(t *testing.T) {
	runEnv(t)
	data := t.TempDir()
	_, err := run(t, data, nil, "run", "--resume", "nosuchid", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--workspace", t.TempDir())
	want := "no transcript nosuchid in " + transcript.Dir(data) + "; kws transcripts ls lists them"
	if err == nil || err.Error() != want {
		t.Fatalf("resume of an unknown id: %v; want %q", err, want)
	}
	// With --json the events end with the reason, as a line a script can
	// read: there is no session to name.
	out, _ := run(t, data, nil, "--json", "run", "--resume", "nosuchid", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--workspace", t.TempDir())
	var last struct{ Type, Error string }
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != "error" || last.Error != want {
		t.Fatalf("kws --json run --resume nosuchid printed %q; want a last line {\"type\":\"error\",\"error\":%q}", out, want)
	}
}
