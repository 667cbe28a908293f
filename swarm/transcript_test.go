package swarm

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

// shown names the events of a transcript, or the ones a listener would
// take from a subscription, by type and main detail.
func shown(events []Event) []string {
	var out []string
	for _, e := range events {
		switch {
		case e.Type == EvState || e.routine():
			continue
		case e.Type == EvAgent:
			out = append(out, "agent:"+e.Loop.Type+":"+e.Loop.Text)
		default:
			out = append(out, string(e.Type)+":"+e.Text)
		}
	}
	return out
}

func mustTranscript(t *testing.T, sw *Swarm, name string) Transcript {
	t.Helper()
	tr, err := sw.Transcript(name)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTranscriptOfAResumedAgent(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	srv := providertest.New(t, providertest.TextStep("picked up where I was"))
	t.Cleanup(h.stop)
	history := []provider.Message{
		{Role: "user", Content: "read x.go"},
		{Role: "assistant", ToolCalls: []provider.ToolCall{call("c1", "read_file", map[string]string{"path": "x.go"})}},
	}
	h.mu.Lock()
	h.nextServer, h.nextHistory = srv, history
	h.mu.Unlock()
	w := h.watch()
	name := h.sw.SpawnResume("", "agent-3", "sess-1")
	fin := w.until("the resumed turn's end", is(EvFinished, name))
	tr := mustTranscript(t, h.sw, name)
	interrupted := "interrupted: kws stopped before this tool call finished; its effects, if any, are unknown. Check before relying on them."
	if !reflect.DeepEqual(tr.Messages, history) || tr.Resumed != 2 || tr.Session != "sess-1" {
		t.Fatalf("transcript %+v, want the resumed history of sess-1", tr)
	}
	want := []string{"agent:tool_result:" + interrupted, "agent:text_delta:picked up where I was", "agent:done:picked up where I was", "finished:picked up where I was"}
	if got := shown(tr.Events); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	if last := fin[len(fin)-1]; tr.Seq < last.Seq || last.Seq == 0 {
		t.Fatalf("Seq %d does not cover the turn's end (%d)", tr.Seq, last.Seq)
	}
	h.mu.Lock()
	h.nextServer = providertest.New(t)
	h.mu.Unlock()
	t.Cleanup(h.stop)
	if err := h.sw.Restart(name); err != nil {
		t.Fatal(err)
	}
	if tr := mustTranscript(t, h.sw, name); tr.Resumed != 0 || tr.Session != "" || len(tr.Events) != 0 {
		t.Fatalf("after Restart the transcript is %+v, want a fresh one", tr)
	}
}

// TestTranscriptTakenMidTurnSplitsTheEvents takes a transcript while a
// turn waits for its model: the events up to its Seq are exactly the
// ones it holds, and the rest come after it.
func TestTranscriptTakenMidTurnSplitsTheEvents(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	g := h.gate()
	name, _ := h.spawn(providertest.ToolStep(call("c1", "read_file", map[string]string{"path": "none.go"})), g.step("done"),
		providertest.TextStep("second"))
	w := h.watch()
	h.send(name, "hello")
	g.wait(t)
	tr := mustTranscript(t, h.sw, name)
	g.release()
	all := of(name, w.until("the turn's end", is(EvFinished, name)))
	var before, after []Event
	for _, e := range all {
		if e.Seq <= tr.Seq {
			before = append(before, e)
		} else {
			after = append(after, e)
		}
	}
	if got, want := shown(tr.Events), shown(before); !reflect.DeepEqual(got, want) || len(got) < 3 || got[0] != "turn:hello" {
		t.Fatalf("transcript events %q, published before it %q", got, want)
	}
	if got := shown(after); len(got) == 0 || got[len(got)-1] != "finished:done" || strings.Contains(strings.Join(got, " "), "tool_call") {
		t.Fatalf("events after the transcript %q", got)
	}
	if len(tr.Messages) != 0 {
		t.Fatalf("a fresh agent's turn started on %d messages", len(tr.Messages))
	}
	h.send(name, "again")
	w.until("the second turn's end", is(EvFinished, name))
	tr = mustTranscript(t, h.sw, name)
	if roles := len(tr.Messages); roles != 4 || tr.Messages[0].Content != "hello" || tr.Messages[3].Content != "done" {
		t.Fatalf("the second turn started on %+v", tr.Messages)
	}
	if got := shown(tr.Events); got[0] != "turn:again" {
		t.Fatalf("second turn's events %q", got)
	}
}

func TestTranscriptListsWaitingMessagesAndBlocks(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	name, _ := h.spawn(providertest.TextStep("on it"))
	if err := h.sw.Pause(name); err != nil {
		t.Fatal(err)
	}
	id, err := h.vault.Put([]byte("the block"), vault.Meta{Kind: "tool:shell"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.sw.Message("", name, "take t1"); err != nil {
		t.Fatal(err)
	}
	if err := h.sw.Inject(name, id); err != nil {
		t.Fatal(err)
	}
	want := []string{"message:[message from the user] take t1", "injected:" + id}
	if got := shown(mustTranscript(t, h.sw, name).Events); !reflect.DeepEqual(got, want) {
		t.Fatalf("waiting events %q, want %q", got, want)
	}
	w := h.watch()
	if err := h.sw.Resume(name); err != nil {
		t.Fatal(err)
	}
	w.until("the turn's end", is(EvFinished, name))
	got := shown(mustTranscript(t, h.sw, name).Events)
	if len(got) == 0 || !strings.HasPrefix(got[0], "turn:[message from the user] take t1\n\n<ctx_exact id=\""+id) ||
		strings.Contains(strings.Join(got, " "), "message:") || strings.Contains(strings.Join(got, " "), "injected:") {
		t.Fatalf("after the turn the events are %q", got)
	}
}

func TestTranscriptIsEmptyWithoutAHistorian(t *testing.T) {
	sw := New(Config{Factory: func(string, func(agent.Event)) (Runner, error) { return sessionRunner{}, nil }})
	t.Cleanup(sw.Stop)
	name := sw.Spawn()
	if tr := mustTranscript(t, sw, name); tr.Seq != 0 || tr.Messages != nil || tr.Events != nil {
		t.Fatalf("transcript %+v, want none", tr)
	}
	if _, err := sw.Transcript("agent-9"); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("a transcript of no agent: %v", err)
	}
}
