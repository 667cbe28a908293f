package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/transcript"
)

// TestWorkstationAgentRecordsItsRun checks that a workstation agent's
// session gets the run.json kws run writes: the model's profile, the diet
// parameters and the token totals of its turns.
func TestWorkstationAgentRecordsItsRun(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.srv.Push(providertest.Step{Text: "the run is on record", Usage: &provider.Usage{PromptTokens: 120, CompletionTokens: 7}})
	r.typeText("say recorded")
	r.press("Enter")
	r.waitFor("the run is on record") // the answer, drawn mid-turn
	sums, err := transcript.List(r.w.st.opts.DataDir)
	if err != nil || len(sums) != 1 {
		t.Fatalf("sessions: %v, %v", sums, err)
	}
	var run struct {
		Profile profile.Profile   `json:"profile"`
		Params  diet.Params       `json:"params"`
		Totals  transcript.Totals `json:"totals"`
	}
	// The agent goes idle only after its Run returned, and Run records
	// the totals before it returns.
	r.waitFor("agent-1 · idle")
	path := filepath.Join(transcript.Dir(r.w.st.opts.DataDir), sums[0].ID, transcript.RunFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("run.json: %v: %s", err, data)
	}
	want := profile.Resolve(providertest.Model, r.srv.URL(), nil)
	if run.Profile != want {
		t.Errorf("profile %+v, want %+v", run.Profile, want)
	}
	if params, _ := diet.Preset(""); run.Params != params {
		t.Errorf("params %+v, want %+v", run.Params, params)
	}
	if run.Totals.Calls != 1 || run.Totals.PromptTokens != 120 || run.Totals.CompletionTokens != 7 || run.Totals.SentTokens == 0 {
		t.Errorf("totals %+v, want one call of 120+7 tokens", run.Totals)
	}
}

// TestWorkstationClosesItsSessionsAsDone: after the workstation quits,
// kws transcripts ls shows its agent's finished session as done, not as
// running forever.
func TestWorkstationClosesItsSessionsAsDone(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.srv.Push(providertest.TextStep("all wrapped up"))
	r.typeText("say finished")
	r.press("Enter")
	r.waitFor("all wrapped up") // the answer, drawn mid-turn
	r.waitFor("agent-1 · idle") // then the turn's end
	if sums, err := transcript.List(r.w.st.opts.DataDir); err != nil || len(sums) != 1 || sums[0].Status != transcript.StatusRunning {
		t.Fatalf("while open: %+v, %v", sums, err)
	}
	if err := r.d.Stop(); err != nil {
		t.Fatal(err)
	}
	r.w.Close()
	sums, err := transcript.List(r.w.st.opts.DataDir)
	if err != nil || len(sums) != 1 || sums[0].Status != transcript.StatusDone {
		t.Fatalf("after quitting: %+v, %v; want one session, done", sums, err)
	}
}

// TestRunTaskFailsAtOnceWhenTheAgentIsOffline: kws run through a session
// whose configuration gives its agents no model hung for ever, its task
// never shown. The new agent is offline, and RunTask says so with the
// reason instead of waiting for a turn that cannot start.
func TestRunTaskFailsAtOnceWhenTheAgentIsOffline(t *testing.T) {
	r := newWSRig(t, 160, 48, false)
	r.waitFor("agent-1 · offline")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := r.w.RunTask(ctx, Task{Text: "hi", Started: func(string, string) {}, OnEvent: func(agent.Event) {}})
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "agent-2") || !strings.Contains(err.Error(), "no model") {
		t.Fatalf("RunTask with no model: %v (context %v)", err, ctx.Err())
	}
}

// TestRunTaskSaysWhenItWaitsForApproval: a kws run task whose tool call
// waits for approval in the workstation tells its client so, naming the
// agent and the tool, and runs on once the user approves in the pane.
func TestRunTaskSaysWhenItWaitsForApproval(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.waitFor("agent-1 · idle")
	r.srv.Push(
		providertest.ToolStep(provider.ToolCall{ID: "call-1", Name: "write_file", Arguments: `{"path":"out.txt","content":"hello\n"}`}),
		providertest.TextStep("written after approval"),
	)
	type waited struct{ agent, tool string }
	waits := make(chan waited, 4)
	done := make(chan error, 1)
	go func() {
		_, err := r.w.RunTask(context.Background(), Task{Text: "write out.txt", Started: func(string, string) {}, OnEvent: func(agent.Event) {},
			Waiting: func(agent, _, tool string) { waits <- waited{agent, tool} }})
		done <- err
	}()
	select {
	case w := <-waits:
		if w != (waited{"agent-2", "write_file"}) {
			t.Errorf("Waiting heard %+v, want agent-2 waiting on write_file", w)
		}
	case err := <-done:
		t.Fatalf("the task ended before it asked: %v", err)
	}
	r.waitFor("y  allow once")
	r.press("y")
	if err := <-done; err != nil {
		t.Fatalf("the approved task: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "out.txt")); err != nil {
		t.Errorf("the approved write: %v", err)
	}
	if len(waits) != 0 {
		t.Errorf("Waiting heard more than the one call: %+v", <-waits)
	}
}
