package swarm

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// messages keeps the EvMessage events of events.
func messages(events []Event) []Event {
	var out []Event
	for _, e := range events {
		if e.Type == EvMessage {
			out = append(out, e)
		}
	}
	return out
}

// sendResult is the text of the agent's agent_send result among events.
func sendResult(t *testing.T, name string, events []Event) string {
	t.Helper()
	for _, e := range events {
		if e.Agent == name && e.Type == EvAgent && e.Loop.Type == agent.EvToolResult && e.Loop.Tool == "agent_send" {
			return e.Loop.Text
		}
	}
	t.Fatalf("%s has no agent_send result in %s", name, describe(events))
	return ""
}

func TestAgentSendDeliversOnce(t *testing.T) {
	tests := []struct {
		name       string
		to         string
		recipients []string // of agent-2 and agent-3
		wantResult string
	}{
		{"to one agent", "agent-2", []string{"agent-2"}, "delivered to agent-2"},
		{"to all others", Everyone, []string{"agent-2", "agent-3"}, "delivered to agent-2, agent-3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, permission.Interactive)
			w := h.watch()
			sender, senderSrv := h.spawn(
				providertest.ToolStep(call("c1", "agent_send", map[string]string{"to": tc.to, "text": "please review auth.go"})),
				providertest.TextStep("sent"))
			servers := map[string]*providertest.Server{}
			for range 2 {
				name, srv := h.spawn(providertest.TextStep("on it"))
				servers[name] = srv
			}
			// An offline agent takes no message, and a message to all
			// skips it.
			h.spawnOffline(errors.New("no model configured"))
			h.send(sender, "ask for a review")
			// The recipients may finish before the sender does.
			waiting := map[string]bool{sender: true}
			for _, r := range tc.recipients {
				waiting[r] = true
			}
			seen := w.until("every turn to end", func(e Event) bool {
				if e.Type == EvFinished {
					delete(waiting, e.Agent)
				}
				return len(waiting) == 0
			})
			if got := sendResult(t, sender, seen); got != tc.wantResult {
				t.Fatalf("agent_send returned %q, want %q", got, tc.wantResult)
			}
			const turn = "[message from agent-1] please review auth.go"
			var got []string
			for _, e := range messages(seen) {
				if e.From != sender || e.Text != turn {
					t.Fatalf("EvMessage %+v, want from %s with %q", e, sender, turn)
				}
				got = append(got, e.Agent)
			}
			if !slices.Equal(got, tc.recipients) {
				t.Fatalf("EvMessage went to %v, want %v", got, tc.recipients)
			}
			for name, srv := range servers {
				reqs := srv.Requests()
				want := 0
				if slices.Contains(tc.recipients, name) {
					want = 1
				}
				if len(reqs) != want {
					t.Fatalf("%s made %d calls, want %d", name, len(reqs), want)
				}
				if want == 1 && lastUser(t, reqs[0]) != turn {
					t.Fatalf("%s was sent %q, want %q", name, lastUser(t, reqs[0]), turn)
				}
				if in := h.info(name); in.Queued != 0 {
					t.Fatalf("%s still has %d turns queued", name, in.Queued)
				}
			}
			if n := len(senderSrv.Requests()); n != 2 {
				t.Fatalf("the sender made %d calls, want 2: its own message must not come back", n)
			}
		})
	}
}

func TestUserMessageQueuesBehindTheRunningTurn(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	g := h.gate()
	name, srv := h.spawn(g.step("first answer"), providertest.TextStep("summary"))
	w := h.watch()
	h.send(name, "refactor the parser")
	g.wait(t)
	if err := h.sw.Message("", name, "stop and summarise"); err != nil {
		t.Fatal(err)
	}
	ev := w.until("EvMessage", is(EvMessage, name))
	if e := ev[len(ev)-1]; e.From != "" || e.Text != "[message from the user] stop and summarise" || e.Info.Queued != 1 {
		t.Fatalf("EvMessage %+v, want the user's message queued behind the running turn", e)
	}
	g.release()
	w.until("the first turn to end", is(EvFinished, name))
	w.until("the message's turn to end", is(EvFinished, name))
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs))
	}
	if got := lastUser(t, reqs[1]); got != "[message from the user] stop and summarise" {
		t.Fatalf("the second turn sent %q", got)
	}
}

func TestMessageErrors(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	name, _ := h.spawn()
	offline := h.spawnOffline(errors.New("no model configured"))
	tests := []struct {
		name     string
		from, to string
		text     string
		is       error  // nil: only the text is checked
		want     string // in the error
	}{
		{"unknown agent", "", "agent-9", "hi", ErrNoAgent, "agent-9"},
		{"offline agent", "", offline, "hi", ErrOffline, "no model configured"},
		{"to itself", name, name, "hi", nil, "itself"},
		{"empty text", "", name, "  ", nil, "empty"},
		{"no recipient", "", "", "hi", nil, "recipient"},
		{"nobody else can take it", name, Everyone, "hi", ErrNoRecipient, "no other agent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.sw.Message(tc.from, tc.to, tc.text)
			if err == nil || tc.is != nil && !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Message: %v, want an error with %q", err, tc.want)
			}
		})
	}
	if in := h.info(name); in.Queued != 0 || in.Busy() {
		t.Fatalf("a refused message left %+v", in)
	}
}
