package swarm

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

func TestPermission(t *testing.T) {
	const content = "written by the swarm\n"
	tests := []struct {
		name       string
		answer     permission.Answer
		wantResult string // in the tool result the model reads
		wantFile   bool
		wantError  bool // the tool result is an error
	}{
		{"allow once", permission.Answer{Decision: permission.AllowOnce}, "created out.txt", true, false},
		{"allow for the session", permission.Answer{Decision: permission.AllowSession}, "created out.txt", true, false},
		{"deny", permission.Answer{Decision: permission.Deny}, "permission denied", false, true},
		{"deny with a reason", permission.Answer{Decision: permission.Deny, Reason: "not in this repository"},
			"permission denied: not in this repository", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, permission.Interactive)
			name, srv := h.spawn(
				providertest.ToolStep(call("c1", "write_file", map[string]any{"path": "out.txt", "content": content})),
				providertest.TextStep("done"))
			w := h.watch()
			h.send(name, "write out.txt")

			asked := w.until("EvAsk", is(EvAsk, name))
			req := asked[len(asked)-1].Request
			if req == nil || req.Agent != name || req.Tool != "write_file" || !strings.Contains(req.Preview, "written by the swarm") {
				t.Fatalf("EvAsk request %+v, want write_file by %s with its diff", req, name)
			}
			if in := h.info(name); in.State != StateApproval || !in.Busy() {
				t.Fatalf("while asking: state %s, want approval", in.State)
			}
			if p := h.sw.Pending(); len(p) != 1 || p[0].ID != req.ID {
				t.Fatalf("Pending() = %+v, want the request", p)
			}
			if err := h.sw.Answer(req.ID, tc.answer); err != nil {
				t.Fatalf("Answer: %v", err)
			}
			if err := h.sw.Answer(req.ID, tc.answer); !errors.Is(err, permission.ErrNotPending) {
				t.Fatalf("a second answer: %v, want ErrNotPending", err)
			}

			events := of(name, w.until("the tool result", loop(agent.EvToolResult, name)))
			decided := slices.IndexFunc(events, loop(agent.EvPermission, name))
			if decided < 1 {
				t.Fatalf("no state change and permission event before the result: %s", describe(events))
			}
			wantDecision := map[bool]string{true: "allow", false: "deny"}[tc.wantFile]
			if got := events[decided].Loop.Decision; got != wantDecision {
				t.Fatalf("decision %q, want %q", got, wantDecision)
			}
			// The state the decision sets is published just before the
			// permission event itself.
			wantState := map[bool]State{true: StateTool, false: StateThinking}[tc.wantFile]
			if st := events[decided-1]; st.Type != EvState || st.Info.State != wantState {
				t.Fatalf("the decision must set the state %s: %s", wantState, describe(events))
			}
			res := events[len(events)-1].Loop
			if !strings.Contains(res.Text, tc.wantResult) || res.IsError != tc.wantError {
				t.Fatalf("tool result %q (error %v), want %q (error %v)", res.Text, res.IsError, tc.wantResult, tc.wantError)
			}

			fin := w.until("EvFinished", is(EvFinished, name))
			if last := fin[len(fin)-1]; last.Err != "" || last.Text != "done" {
				t.Fatalf("finished with %q, err %q", last.Text, last.Err)
			}
			if in := h.info(name); in.State != StateIdle || h.sw.Busy() {
				t.Fatalf("after the turn: state %s (%s)", in.State, in.Detail)
			}
			data, err := os.ReadFile(filepath.Join(h.workspace(name), "out.txt"))
			switch {
			case tc.wantFile && (err != nil || string(data) != content):
				t.Fatalf("allowed write: %q, %v", data, err)
			case !tc.wantFile && !errors.Is(err, os.ErrNotExist):
				t.Fatalf("a denied write touched the file: %q, %v", data, err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			msgs := reqs[1].Messages
			if m := msgs[len(msgs)-1]; m.Role != "tool" || m.ToolCallID != "c1" || !strings.Contains(m.Content, tc.wantResult) {
				t.Fatalf("the model read %+v, want the tool result %q", m, tc.wantResult)
			}
			if got := h.broker.SessionAllowed(name, "write_file"); got != (tc.answer.Decision == permission.AllowSession) {
				t.Fatalf("write_file allowed for the session: %v", got)
			}
		})
	}
}

// TestAskFromOutsideTheSwarm forwards a request of an asker the swarm
// does not run, and carries the answer back.
func TestAskFromOutsideTheSwarm(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	w := h.watch()
	answered := make(chan permission.Answer, 1)
	go func() {
		a, err := h.broker.Ask(t.Context(), permission.Request{ID: "outside-1", Tool: "shell", Preview: "make", Agent: "outsider"})
		if err != nil {
			a.Reason = err.Error()
		}
		answered <- a
	}()
	events := w.until("EvAsk", is(EvAsk, "outsider"))
	if req := events[len(events)-1].Request; req == nil || req.ID != "outside-1" || req.Preview != "make" {
		t.Fatalf("EvAsk request %+v", req)
	}
	if err := h.sw.Answer("outside-1", permission.Answer{Decision: permission.AllowOnce}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-answered:
		if a.Decision != permission.AllowOnce {
			t.Fatalf("the asker got %+v", a)
		}
	case <-time.After(waitLimit):
		t.Fatal("the asker got no answer")
	}
	if err := h.sw.Answer("outside-1", permission.Answer{Decision: permission.Deny}); !errors.Is(err, permission.ErrNotPending) {
		t.Fatalf("answering twice: %v", err)
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name string
		// steps script the agent that is cancelled; started waits until
		// its turn is under way.
		steps   func(arrived chan struct{}) []providertest.Step
		started func(t *testing.T, w *watch, name string, arrived chan struct{})
	}{
		{
			name:  "during the model call",
			steps: func(arrived chan struct{}) []providertest.Step { return []providertest.Step{slowStep(arrived)} },
			started: func(t *testing.T, _ *watch, _ string, arrived chan struct{}) {
				waitClosed(t, arrived, "the slow request")
			},
		},
		{
			name: "while waiting for approval",
			steps: func(chan struct{}) []providertest.Step {
				return []providertest.Step{providertest.ToolStep(call("c1", "shell", map[string]any{"command": "touch pwned"}))}
			},
			started: func(t *testing.T, w *watch, name string, _ chan struct{}) {
				w.until("EvAsk", is(EvAsk, name))
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, permission.Interactive)
			arrived := make(chan struct{})
			slow, slowSrv := h.spawn(tc.steps(arrived)...)
			other := h.gate()
			busy, _ := h.spawn(other.step("the other agent's answer"))
			w := h.watch()
			h.send(slow, "run touch pwned")
			h.send(slow, "then this queued turn")
			h.send(busy, "keep going")
			tc.started(t, w, slow, arrived)
			other.wait(t)

			if err := h.sw.Cancel(slow); err != nil {
				t.Fatal(err)
			}
			events := w.until("the cancelled EvFinished", is(EvFinished, slow))
			if fin := events[len(events)-1]; fin.Err != "cancelled" || fin.Info.State != StateIdle {
				t.Fatalf("cancelled turn finished with err %q in state %s", fin.Err, fin.Info.State)
			}
			if in := h.info(slow); in.State != StateIdle || in.Queued != 0 || in.Busy() {
				t.Fatalf("after Cancel: %+v, want idle with nothing queued", in)
			}
			if p := h.sw.Pending(); len(p) != 0 {
				t.Fatalf("a cancelled turn left requests pending: %+v", p)
			}
			if in := h.info(busy); in.State != StateThinking {
				t.Fatalf("the other agent is %s, want still thinking", in.State)
			}
			other.release()
			events = w.until("the other EvFinished", is(EvFinished, busy))
			if fin := events[len(events)-1]; fin.Err != "" || fin.Text != "the other agent's answer" {
				t.Fatalf("the other agent finished with %q, err %q", fin.Text, fin.Err)
			}
			for _, e := range of(slow, events) {
				if e.Type == EvTurn {
					t.Fatalf("the dropped turn %q ran", e.Text)
				}
			}
			if _, err := os.Stat(filepath.Join(h.workspace(slow), "pwned")); err == nil {
				t.Fatal("a cancelled request ran its command")
			}

			// The cancelled agent takes new turns.
			slowSrv.Push(providertest.TextStep("back again"))
			h.send(slow, "are you there?")
			events = w.until("the next EvFinished", is(EvFinished, slow))
			if fin := events[len(events)-1]; fin.Err != "" || fin.Text != "back again" {
				t.Fatalf("the turn after Cancel finished with %q, err %q", fin.Text, fin.Err)
			}
			if n := len(slowSrv.Requests()); n != 2 {
				t.Fatalf("the cancelled agent made %d requests, want 2 (the queued turn was dropped)", n)
			}
			if h.sw.Busy() {
				t.Fatal("busy after every turn finished")
			}
		})
	}
}

func TestInject(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	name, srv := h.spawn(providertest.TextStep("noted"), providertest.TextStep("plain"))
	block := []byte("FAILED TestParse - want 3, got 4\nexact bytes \x00 kept\n")
	id, err := h.vault.Put(block, vault.Meta{Kind: "tool:shell"})
	if err != nil {
		t.Fatal(err)
	}
	w := h.watch()
	if err := h.sw.Inject(name, id); err != nil {
		t.Fatal(err)
	}
	ev := w.until("EvInjected", is(EvInjected, name))
	if inj := ev[len(ev)-1]; inj.Text != id || inj.Info.Injected != 1 {
		t.Fatalf("EvInjected %q with %d waiting, want %q with 1", inj.Text, inj.Info.Injected, id)
	}
	if in := h.info(name); in.Injected != 1 || in.Busy() {
		t.Fatalf("after Inject: %+v", in)
	}
	if err := h.sw.Inject(name, "ctx:0123456789ab"); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("injecting an unknown block: %v, want vault.ErrNotFound", err)
	}

	exact := diet.FormatExact(id, block)
	h.send(name, "why does the parse test fail?")
	events := w.until("EvFinished", is(EvFinished, name))
	turn := events[slices.IndexFunc(events, is(EvTurn, name))]
	if want := "why does the parse test fail?" + "\n\n" + exact; turn.Text != want {
		t.Fatalf("EvTurn text\n got %q\nwant %q", turn.Text, want)
	}
	if got := lastUser(t, srv.Requests()[0]); !strings.HasSuffix(got, exact) || !strings.HasPrefix(got, "why does the parse test fail?") {
		t.Fatalf("the model got the user turn %q, want the question, then the exact block %q", got, exact)
	}
	if in := h.info(name); in.Injected != 0 {
		t.Fatalf("%d blocks still waiting after the turn", in.Injected)
	}

	h.send(name, "and now?")
	events = w.until("the second EvFinished", is(EvFinished, name))
	if turn := events[slices.IndexFunc(events, is(EvTurn, name))]; turn.Text != "and now?" {
		t.Fatalf("the block rode a second turn: %q", turn.Text)
	}
	if got := lastUser(t, srv.Requests()[1]); got != "and now?" {
		t.Fatalf("second user turn %q", got)
	}
}
