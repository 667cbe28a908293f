package panes

import (
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/swarm"
)

// send types line into the pane's input and presses Enter.
func send(p *AgentPane, line string) {
	typeText(p, line)
	key(p, tcell.KeyEnter, 0, 0)
}

// TestAgentPaneHistoryRecallsLinesSent walks the history as a shell does:
// Up recalls the lines sent, newest first, and stops at the oldest; Down
// walks back and, past the newest, restores the draft being typed; a
// recalled line is sent by Enter.
func TestAgentPaneHistoryRecallsLinesSent(t *testing.T) {
	p, fa, _ := newAgentPane(t)
	key(p, tcell.KeyUp, 0, 0)
	if got := p.input.GetText(); got != "" {
		t.Fatalf("Up with no history shows %q", got)
	}
	send(p, "first question")
	send(p, "second question")
	send(p, "second question")
	typeText(p, "half-typed")
	steps := []struct {
		k    tcell.Key
		want string
	}{
		{tcell.KeyUp, "second question"},
		{tcell.KeyUp, "first question"},
		{tcell.KeyUp, "first question"},
		{tcell.KeyDown, "second question"},
		{tcell.KeyDown, "half-typed"},
		{tcell.KeyDown, "half-typed"},
		{tcell.KeyUp, "second question"},
	}
	for i, s := range steps {
		key(p, s.k, 0, 0)
		if got := p.input.GetText(); got != s.want {
			t.Fatalf("step %d: input %q, want %q", i, got, s.want)
		}
	}
	key(p, tcell.KeyEnter, 0, 0)
	if n := len(fa.sent); n != 4 || fa.sent[3] != "second question" {
		t.Fatalf("sent %q, want the recalled line last", fa.sent)
	}
	if got := p.input.GetText(); got != "" {
		t.Errorf("input %q after sending, want it empty", got)
	}
	key(p, tcell.KeyUp, 0, 0)
	if got := p.input.GetText(); got != "second question" {
		t.Errorf("Up after sending shows %q", got)
	}
}

// TestAgentPaneHistoryKeepsOtherKeys checks Up and Down leave the other
// keys alone: PgUp still scrolls, a recall drops the ref selection (so
// Enter sends rather than opens), and under a permission dialog they
// recall nothing while its keys still answer it.
func TestAgentPaneHistoryKeepsOtherKeys(t *testing.T) {
	env := testEnv()
	clock := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	env.Now = func() time.Time { return clock }
	fa := &fakeAgents{info: swarm.Info{State: swarm.StateIdle}}
	var opened []string
	p := NewAgentPane(env, "agent-1", fa, func(id string) error { opened = append(opened, id); return nil })
	send(p, "look at ctx:5f2a9c1e7b3d")
	conversation(p)
	render(t, p, 80, 8)
	key(p, tcell.KeyPgUp, 0, 0)
	if p.view.scroll == 0 {
		t.Error("PgUp did not scroll the transcript")
	}
	key(p, tcell.KeyTab, 0, 0)
	if p.view.selected < 0 {
		t.Fatal("Tab selected no ref")
	}
	key(p, tcell.KeyUp, 0, 0)
	key(p, tcell.KeyEnter, 0, 0)
	if len(opened) != 0 || len(fa.sent) != 2 || fa.sent[1] != "look at ctx:5f2a9c1e7b3d" {
		t.Fatalf("after Up, Enter: opened %q, sent %q; want the line sent again", opened, fa.sent)
	}

	req := permission.Request{ID: "agent-1-1", Tool: "shell", Agent: "agent-1", Preview: "ls"}
	p.OnEvent(swarm.Event{Type: swarm.EvAsk, Agent: "agent-1", Request: &req})
	clock = clock.Add(time.Second)
	key(p, tcell.KeyUp, 0, 0)
	if got := p.input.GetText(); got != "" {
		t.Errorf("Up under the dialog recalled %q", got)
	}
	clock = clock.Add(time.Second)
	key(p, tcell.KeyRune, 'y', 0)
	if fa.answers["agent-1-1"] != permission.AllowOnce {
		t.Errorf("the dialog's y answered %v, want allow once", fa.answers)
	}
}

// TestAgentPaneHistoryOfARestoredAgent opens the pane of an agent whose
// transcript holds earlier turns: Up recalls them, newest first.
func TestAgentPaneHistoryOfARestoredAgent(t *testing.T) {
	fa := &fakeAgents{info: swarm.Info{State: swarm.StateIdle}, transcript: swarm.Transcript{Messages: []provider.Message{
		{Role: "user", Content: "read the notes"},
		{Role: "assistant", Content: "Done."},
		{Role: "user", Content: "now fix the test"},
		{Role: "assistant", Content: "Fixed."},
	}}}
	p := NewAgentPane(testEnv(), "agent-1", fa, func(string) error { return nil })
	for _, want := range []string{"now fix the test", "read the notes"} {
		key(p, tcell.KeyUp, 0, 0)
		if got := p.input.GetText(); got != want {
			t.Fatalf("Up shows %q, want %q", got, want)
		}
	}
}
