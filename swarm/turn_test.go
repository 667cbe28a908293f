package swarm

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

func TestSpawnNamesAgentsAndKeepsFailuresOffline(t *testing.T) {
	tests := []struct {
		name    string
		failure error // nil: the factory builds a real agent
	}{
		{"first agent has a model", nil},
		{"second agent has none", errors.New("no model configured: set KWS_BASE_URL and KWS_MODEL")},
		{"third agent has a model", nil},
		{"fourth agent's model is unreachable", errors.New("provider: 127.0.0.1:1 refused the connection")},
	}
	h := newHarness(t, permission.Interactive)
	w := h.watch()
	// The cases share one swarm, whose numbering they check, so they run
	// in order in this test rather than as subtests.
	for i, tc := range tests {
		var name string
		if tc.failure == nil {
			name, _ = h.spawn()
		} else {
			name = h.spawnOffline(tc.failure)
		}
		if want := fmt.Sprintf("agent-%d", i+1); name != want {
			t.Fatalf("%s: Spawn named %q, want %q", tc.name, name, want)
		}
		ev := w.until("EvSpawned of "+name, is(EvSpawned, name))
		spawned := ev[len(ev)-1].Info
		in := h.info(name)
		if spawned.Name != name || spawned.State != in.State {
			t.Fatalf("%s: EvSpawned carries %+v, Info says %+v", tc.name, spawned, in)
		}
		if tc.failure == nil {
			if in.State != StateIdle || in.Detail != "" {
				t.Fatalf("%s: state %s (%q), want idle", tc.name, in.State, in.Detail)
			}
			continue
		}
		if in.State != StateOffline || in.Detail != tc.failure.Error() {
			t.Fatalf("%s: state %s with detail %q, want offline with %q", tc.name, in.State, in.Detail, tc.failure.Error())
		}
		err := h.sw.Send(name, "hello")
		if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), tc.failure.Error()) {
			t.Fatalf("%s: Send to an offline agent: %v, want ErrOffline with the reason", tc.name, err)
		}
		// One sentence, said once: errors.Join printed "the agent has no
		// model" and then the reason, run together on one line.
		if msg := err.Error(); strings.Contains(msg, "\n") || strings.Count(msg, "no model") > strings.Count(tc.failure.Error(), "no model") {
			t.Fatalf("%s: Send to an offline agent says %q, want the reason once on one line", tc.name, msg)
		}
		if in := h.info(name); in.Queued != 0 || in.Busy() {
			t.Fatalf("%s: a refused send left %+v", tc.name, in)
		}
	}
	var names []string
	for _, in := range h.sw.Agents() {
		names = append(names, in.Name)
	}
	if want := []string{"agent-1", "agent-2", "agent-3", "agent-4"}; !slices.Equal(names, want) {
		t.Fatalf("Agents() in order %v, want %v", names, want)
	}
	for _, op := range []func() error{
		func() error { return h.sw.Send("agent-9", "hello") },
		func() error { return h.sw.Cancel("agent-9") },
		func() error { _, err := h.sw.Info("agent-9"); return err },
		func() error { return h.sw.Inject("agent-9", "ctx:0123456789ab") },
	} {
		if err := op(); !errors.Is(err, ErrNoAgent) {
			t.Fatalf("an operation on an unknown agent: %v, want ErrNoAgent", err)
		}
	}
}

// TestSendDuringFailingSpawn sends to an agent while its factory is still
// running and then fails: the queued turn cannot run, so it must not keep
// the agent (and the swarm) busy for ever.
func TestSendDuringFailingSpawn(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	sw := New(Config{Factory: func(string, func(agent.Event)) (Runner, error) {
		close(entered)
		<-release
		return nil, errors.New("no model configured")
	}})
	defer sw.Stop()
	sw.Start() // without a broker there is nothing to forward
	if err := sw.Answer("agent-1-1", permission.Answer{Decision: permission.AllowOnce}); !errors.Is(err, permission.ErrNotPending) {
		t.Fatalf("Answer without a broker: %v, want ErrNotPending", err)
	}
	if p := sw.Pending(); p != nil {
		t.Fatalf("Pending without a broker: %+v", p)
	}
	spawned := make(chan string, 1)
	go func() { spawned <- sw.Spawn() }()
	waitClosed(t, entered, "the factory call")
	if err := sw.Send("agent-1", "early"); err != nil {
		t.Fatalf("Send while spawning: %v", err)
	}
	if !sw.Busy() {
		t.Fatal("a queued turn must make the swarm busy")
	}
	close(release)
	var name string
	select {
	case name = <-spawned:
	case <-time.After(waitLimit):
		t.Fatal("Spawn did not return")
	}
	in, err := sw.Info(name)
	if err != nil {
		t.Fatal(err)
	}
	if in.State != StateOffline || in.Queued != 0 || sw.Busy() {
		t.Fatalf("after the factory failed: %+v, busy %v; want offline, nothing queued, not busy", in, sw.Busy())
	}
}

func TestTurnEventsAndStats(t *testing.T) {
	tests := []struct {
		name       string
		step       providertest.Step
		wantPrompt int // provider-reported prompt tokens
	}{
		{"default chunks", providertest.TextStep("A goroutine is a lightweight thread managed by the Go runtime."), 0},
		{"one rune per chunk", providertest.Step{Text: "Channels connect goroutines.", ChunkSize: 1}, 0},
		{"usage reported", providertest.Step{Text: "It depends on the workload.",
			Usage: &provider.Usage{PromptTokens: 321, CompletionTokens: 9}}, 321},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, permission.Interactive)
			name, srv := h.spawn(tc.step)
			w := h.watch()
			const question = "What is a goroutine?"
			h.send(name, question)
			events := of(name, w.until("EvFinished", is(EvFinished, name)))

			var seq []string
			var text strings.Builder
			for _, e := range events {
				tok := token(e)
				if e.Type == EvAgent {
					switch e.Loop.Type {
					case agent.EvTextDelta:
						text.WriteString(e.Loop.Text)
					default:
						continue // diet, usage and done figures ride along
					}
				}
				if len(seq) == 0 || seq[len(seq)-1] != tok {
					seq = append(seq, tok)
				}
			}
			want := []string{"state:idle", "turn", "state:thinking", "agent:text_delta", "state:idle", "finished"}
			if !slices.Equal(seq, want) {
				t.Fatalf("event sequence %v, want %v (all: %s)", seq, want, describe(events))
			}
			if events[0].Info.Queued != 1 {
				t.Fatalf("the send's state event counts %d queued, want 1", events[0].Info.Queued)
			}
			if turn := events[slices.IndexFunc(events, is(EvTurn, name))]; turn.Text != question {
				t.Fatalf("EvTurn text %q, want %q", turn.Text, question)
			}
			fin := events[len(events)-1]
			if text.String() != tc.step.Text || fin.Text != tc.step.Text || fin.Err != "" {
				t.Fatalf("deltas %q, finished %q (err %q), want %q", text.String(), fin.Text, fin.Err, tc.step.Text)
			}
			if fin.Info.State != StateIdle {
				t.Fatalf("EvFinished carries state %s, want idle", fin.Info.State)
			}

			in := h.info(name)
			st := in.Stats
			if in.State != StateIdle || in.Busy() || h.sw.Busy() {
				t.Fatalf("after the turn: %+v", in)
			}
			if st.Calls != 1 || st.SentTokens <= 0 || st.NaiveTokens < st.SentTokens || len(st.Series) != 1 ||
				st.Series[0] != (Point{Naive: st.NaiveTokens, Sent: st.SentTokens}) {
				t.Fatalf("stats %+v: want one call with its sent and naive tokens", st)
			}
			if st.PromptTokens != tc.wantPrompt {
				t.Fatalf("prompt tokens %d, want %d", st.PromptTokens, tc.wantPrompt)
			}
			if reqs := srv.Requests(); len(reqs) != 1 || lastUser(t, reqs[0]) != question {
				t.Fatalf("the model got %d requests, want 1 with the question", len(reqs))
			}
		})
	}
}

// TestFailedTurn fails a turn at the provider: the agent shows the error
// and takes the next turn.
func TestFailedTurn(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	name, srv := h.spawn(providertest.Step{Status: 400, ErrorBody: `{"error":{"message":"model not found","type":"invalid_request_error"}}`})
	w := h.watch()
	h.send(name, "hello")
	events := w.until("EvFinished", is(EvFinished, name))
	fin := events[len(events)-1]
	if fin.Err == "" || fin.Err == "cancelled" || !strings.Contains(fin.Err, "model not found") {
		t.Fatalf("a failed turn finished with err %q, want the provider's error", fin.Err)
	}
	if in := h.info(name); in.State != StateError || in.Detail != fin.Err || in.Busy() {
		t.Fatalf("after a failed turn: %+v, want the error state with its text", in)
	}
	srv.Push(providertest.TextStep("recovered"))
	h.send(name, "hello again")
	events = w.until("the next EvFinished", is(EvFinished, name))
	if fin := events[len(events)-1]; fin.Err != "" || fin.Text != "recovered" || fin.Info.State != StateIdle {
		t.Fatalf("the next turn finished with %q, err %q, state %s", fin.Text, fin.Err, fin.Info.State)
	}
}

func TestQueuedTurnsRunInOrder(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	first := h.gate()
	name, srv := h.spawn(first.step("first answer"),
		providertest.TextStep("second answer"), providertest.TextStep("third answer"))
	w := h.watch()
	h.send(name, "one")
	first.wait(t)
	for i, text := range []string{"two", "three"} {
		h.send(name, text)
		if in := h.info(name); in.Queued != i+1 || in.State != StateThinking || !h.sw.Busy() {
			t.Fatalf("after queueing %q behind a running turn: %+v, want %d queued while thinking", text, in, i+1)
		}
	}
	first.release()

	var turns, answers []string
	running := false
	for range 3 {
		for _, e := range of(name, w.until("EvFinished", is(EvFinished, name))) {
			switch e.Type {
			case EvTurn:
				if running {
					t.Fatalf("turn %q started before the previous one finished", e.Text)
				}
				running = true
				turns = append(turns, e.Text)
			case EvFinished:
				running = false
				answers = append(answers, e.Text)
				if e.Err != "" {
					t.Fatalf("turn failed: %s", e.Err)
				}
			}
		}
	}
	if want := []string{"one", "two", "three"}; !slices.Equal(turns, want) {
		t.Fatalf("turns ran as %v, want %v", turns, want)
	}
	if want := []string{"first answer", "second answer", "third answer"}; !slices.Equal(answers, want) {
		t.Fatalf("answers %v, want %v", answers, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"one", "two", "three"} {
		if got := lastUser(t, reqs[i]); got != want {
			t.Fatalf("request %d ends with the user turn %q, want %q", i, got, want)
		}
	}
	if in := h.info(name); in.Queued != 0 || in.State != StateIdle || h.sw.Busy() {
		t.Fatalf("after the queue drained: %+v", in)
	}
}
