package swarm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// waitLimit bounds every wait for an event.
const waitLimit = 10 * time.Second

// harness is a swarm of real agents on one real vault and one broker. Each
// agent talks to its own scripted server and works in its own workspace.
type harness struct {
	t      *testing.T
	sw     *Swarm
	vault  *vault.Vault
	broker *permission.Broker
	// done is closed by stop; it opens every gate, so that no scripted
	// handler outlives the test.
	done     chan struct{}
	stopOnce sync.Once

	mu         sync.Mutex
	nextServer *providertest.Server // the model of the next Spawn; nil fails it
	nextErr    error                // the factory error when nextServer is nil
	workspaces map[string]string
}

// newHarness starts a swarm whose broker answers in mode.
func newHarness(t *testing.T, mode permission.Mode) *harness {
	t.Helper()
	h := &harness{t: t, vault: vaulttest.MustOpen(t), broker: permission.NewBroker(mode),
		done: make(chan struct{}), workspaces: map[string]string{}}
	h.sw = New(Config{Factory: h.factory, Vault: h.vault, Broker: h.broker})
	h.sw.Start()
	t.Cleanup(h.stop)
	return h
}

// stop stops the swarm within waitLimit and opens every gate. It is
// registered again after each scripted server, so that it runs before the
// servers close: a server waits for its handlers when it closes.
func (h *harness) stop() {
	h.stopOnce.Do(func() {
		close(h.done)
		stopped := make(chan struct{})
		go func() {
			h.sw.Stop()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(waitLimit):
			h.t.Errorf("Stop did not return within %v", waitLimit)
		}
	})
}

// factory builds a real agent on the next scripted server, or fails as
// the test asked.
func (h *harness) factory(name string, onEvent func(agent.Event)) (Runner, error) {
	h.mu.Lock()
	srv, failure := h.nextServer, h.nextErr
	h.nextServer, h.nextErr = nil, nil
	h.mu.Unlock()
	if srv == nil {
		if failure == nil {
			failure = errors.New("no model configured: set KWS_BASE_URL")
		}
		return nil, failure
	}
	ws, err := filepath.EvalSymlinks(h.t.TempDir())
	if err != nil {
		return nil, err
	}
	client, err := provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "test-key", Model: "test-model",
		NativeTools: true, MaxRetries: -1, Sleep: func(time.Duration) {}})
	if err != nil {
		return nil, err
	}
	a, err := agent.New(agent.Config{Name: name, Workspace: ws, Client: client, Model: "test-model",
		Profile: profile.Profile{ID: "test-model", ContextWindow: 128000, CompletionReserve: 4096},
		Diet:    diet.Defaults(), Vault: h.vault, Policy: permission.DefaultPolicy(), Broker: h.broker,
		OnEvent: onEvent})
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.workspaces[name] = ws
	h.mu.Unlock()
	return a, nil
}

// spawn starts an agent whose model answers with steps.
func (h *harness) spawn(steps ...providertest.Step) (string, *providertest.Server) {
	h.t.Helper()
	srv := providertest.New(h.t, steps...)
	h.t.Cleanup(h.stop)
	h.mu.Lock()
	h.nextServer = srv
	h.mu.Unlock()
	name := h.sw.Spawn()
	if in := h.info(name); in.State != StateIdle {
		h.t.Fatalf("%s spawned %s (%s), want idle", name, in.State, in.Detail)
	}
	return name, srv
}

// spawnOffline starts an agent whose factory fails with err.
func (h *harness) spawnOffline(err error) string {
	h.mu.Lock()
	h.nextServer, h.nextErr = nil, err
	h.mu.Unlock()
	return h.sw.Spawn()
}

func (h *harness) workspace(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.workspaces[name]
}

func (h *harness) info(name string) Info {
	h.t.Helper()
	in, err := h.sw.Info(name)
	if err != nil {
		h.t.Fatal(err)
	}
	return in
}

func (h *harness) send(name, text string) {
	h.t.Helper()
	if err := h.sw.Send(name, text); err != nil {
		h.t.Fatalf("send to %s: %v", name, err)
	}
}

// gate holds one scripted answer: its Match reports the request's arrival
// and blocks until the test opens the gate (or the harness stops).
type gate struct {
	h       *harness
	arrived chan struct{}
	open    chan struct{}
	once    sync.Once
}

func (h *harness) gate() *gate {
	return &gate{h: h, arrived: make(chan struct{}), open: make(chan struct{})}
}

// step answers text once the gate is open.
func (g *gate) step(text string) providertest.Step {
	return providertest.Step{Text: text, Match: func(providertest.RecordedRequest) error {
		close(g.arrived)
		select {
		case <-g.open:
		case <-g.h.done:
		}
		return nil
	}}
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// wait blocks until the gated request reached the server.
func (g *gate) wait(t *testing.T) {
	t.Helper()
	waitClosed(t, g.arrived, "the gated request")
}

// slowStep reports its request's arrival on arrived and then answers only
// after a minute, or when the client gives up.
func slowStep(arrived chan struct{}) providertest.Step {
	return providertest.Step{Text: "too late", Delay: time.Minute,
		Match: func(providertest.RecordedRequest) error { close(arrived); return nil }}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitLimit):
		t.Fatalf("%s did not happen within %v", what, waitLimit)
	}
}

// watch is one subscription read by the test.
type watch struct {
	t  *testing.T
	ch <-chan Event
}

func (h *harness) watch() *watch {
	ch, _ := h.sw.Subscribe()
	return &watch{t: h.t, ch: ch}
}

// until reads events until pred matches one and returns every event read,
// the match last. It fails the test after waitLimit or when the
// subscription ends first.
func (w *watch) until(what string, pred func(Event) bool) []Event {
	w.t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	var seen []Event
	for {
		select {
		case e, ok := <-w.ch:
			if !ok {
				w.t.Fatalf("the subscription closed while waiting for %s; saw %s", what, describe(seen))
			}
			seen = append(seen, e)
			if pred(e) {
				return seen
			}
		case <-timer.C:
			w.t.Fatalf("no %s within %v; saw %s", what, waitLimit, describe(seen))
		}
	}
}

// is matches an event of type typ about agent name.
func is(typ EventType, name string) func(Event) bool {
	return func(e Event) bool { return e.Type == typ && e.Agent == name }
}

// loop matches an agent loop event of type typ about agent name.
func loop(typ, name string) func(Event) bool {
	return func(e Event) bool { return e.Type == EvAgent && e.Agent == name && e.Loop.Type == typ }
}

// describe is a short form of events for failure messages.
func describe(events []Event) string {
	parts := make([]string, 0, len(events))
	for _, e := range events {
		parts = append(parts, e.Agent+":"+token(e))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// token names an event by its type and its main detail.
func token(e Event) string {
	switch e.Type {
	case EvState:
		return "state:" + string(e.Info.State)
	case EvAgent:
		return "agent:" + e.Loop.Type
	}
	return string(e.Type)
}

// of keeps the events about agent name.
func of(name string, events []Event) []Event {
	var out []Event
	for _, e := range events {
		if e.Agent == name {
			out = append(out, e)
		}
	}
	return out
}

func call(id, name string, args any) provider.ToolCall {
	raw, _ := json.Marshal(args)
	return provider.ToolCall{ID: id, Name: name, Arguments: string(raw)}
}

// lastUser is the last user message of a recorded request.
func lastUser(t *testing.T, req providertest.RecordedRequest) string {
	t.Helper()
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	t.Fatalf("request without a user message: %+v", req.Messages)
	return ""
}

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
			if got := h.broker.SessionAllowed("write_file"); got != (tc.answer.Decision == permission.AllowSession) {
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

func TestAgentsRunInParallelOnOneVault(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	type run struct {
		name string
		gate *gate
	}
	var runs []run
	for i := range 3 {
		g := h.gate()
		name, _ := h.spawn(g.step(fmt.Sprintf("answer %d", i+1)))
		runs = append(runs, run{name, g})
	}
	w := h.watch()
	if h.sw.Busy() {
		t.Fatal("busy before any turn")
	}
	for _, r := range runs {
		h.send(r.name, "what is in this repository?")
	}
	for _, r := range runs {
		r.gate.wait(t)
	}
	// Every agent is inside its model call at the same time.
	if !h.sw.Busy() {
		t.Fatal("not busy while three turns run")
	}
	for _, in := range h.sw.Agents() {
		if in.State != StateThinking {
			t.Fatalf("%s is %s while its turn runs", in.Name, in.State)
		}
	}
	for _, r := range runs {
		r.gate.release()
	}
	answers := map[string]string{}
	w.until("three EvFinished", func(e Event) bool {
		if e.Type == EvFinished {
			if e.Err != "" {
				t.Errorf("%s failed: %s", e.Agent, e.Err)
			}
			answers[e.Agent] = e.Text
		}
		return len(answers) == 3
	})
	for i, r := range runs {
		if want := fmt.Sprintf("answer %d", i+1); answers[r.name] != want {
			t.Fatalf("%s answered %q, want %q", r.name, answers[r.name], want)
		}
		if st := h.info(r.name).Stats; st.Calls != 1 || st.SentTokens <= 0 {
			t.Fatalf("%s stats %+v", r.name, st)
		}
	}
	if h.sw.Busy() {
		t.Fatal("busy after every turn finished")
	}
}

func TestRemove(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	arrived := make(chan struct{})
	gone, _ := h.spawn(slowStep(arrived))
	kept, _ := h.spawn(providertest.TextStep("still here"))
	w := h.watch()
	h.send(gone, "a long question")
	waitClosed(t, arrived, "the slow request")

	h.sw.Remove(gone)
	w.until("EvRemoved", is(EvRemoved, gone))
	h.sw.Remove(gone) // removing twice is harmless
	if _, err := h.sw.Info(gone); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("Info of a removed agent: %v", err)
	}
	if err := h.sw.Send(gone, "hello"); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("Send to a removed agent: %v", err)
	}
	if agents := h.sw.Agents(); len(agents) != 1 || agents[0].Name != kept {
		t.Fatalf("Agents() after Remove: %+v", agents)
	}

	h.send(kept, "are you there?")
	events := w.until("EvFinished of the kept agent", is(EvFinished, kept))
	if fin := events[len(events)-1]; fin.Text != "still here" || fin.Err != "" {
		t.Fatalf("the kept agent finished with %q, err %q", fin.Text, fin.Err)
	}
	if late := of(gone, events); len(late) > 0 {
		t.Fatalf("events about %s after EvRemoved: %s", gone, describe(late))
	}
	if h.sw.Busy() {
		t.Fatal("a removed agent keeps the swarm busy")
	}
	if name := h.spawnOffline(nil); name != "agent-3" {
		t.Fatalf("the next agent is %q, want agent-3 (names are not reused)", name)
	}
}

func TestStop(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	arrived := make(chan struct{})
	slow, _ := h.spawn(slowStep(arrived))
	asking, _ := h.spawn(providertest.ToolStep(call("c1", "write_file", map[string]any{"path": "x.txt", "content": "x"})))
	idle, _ := h.spawn()
	offline := h.spawnOffline(nil)
	first, second := h.watch(), h.watch()
	h.send(slow, "a long question")
	h.send(slow, "a queued question")
	h.send(asking, "write x.txt")
	waitClosed(t, arrived, "the slow request")
	first.until("EvAsk", is(EvAsk, asking))

	h.stop()
	for i, w := range []*watch{first, second} {
		timer := time.NewTimer(waitLimit)
		for open := true; open; {
			select {
			case _, open = <-w.ch:
			case <-timer.C:
				t.Fatalf("subscription %d is still open after Stop", i+1)
			}
		}
		timer.Stop()
	}
	if ch, _ := h.sw.Subscribe(); !closedSoon(ch) {
		t.Fatal("a subscription made after Stop is open")
	}
	for _, name := range []string{slow, asking, idle} {
		if err := h.sw.Send(name, "hello"); !errors.Is(err, ErrStopped) {
			t.Fatalf("Send to %s after Stop: %v, want ErrStopped", name, err)
		}
	}
	if err := h.sw.Send(offline, "hello"); !errors.Is(err, ErrOffline) {
		t.Fatalf("Send to the offline agent after Stop: %v", err)
	}
	if h.sw.Busy() {
		t.Fatalf("busy after Stop: %+v", h.sw.Agents())
	}
	if p := h.sw.Pending(); len(p) != 0 {
		t.Fatalf("requests pending after Stop: %+v", p)
	}
	late := h.sw.Spawn()
	if err := h.sw.Send(late, "hello"); !errors.Is(err, ErrStopped) {
		t.Fatalf("Send to an agent spawned after Stop: %v, want ErrStopped", err)
	}
	h.sw.Stop() // a second Stop returns at once
}

// closedSoon reports whether ch closes within waitLimit.
func closedSoon(ch <-chan Event) bool {
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-timer.C:
			return false
		}
	}
}

// TestSpawnRacingStop spawns agents while the swarm stops: Stop returns,
// and every agent that Spawn returns refuses turns.
func TestSpawnRacingStop(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	srv := providertest.New(t)
	t.Cleanup(h.stop)
	h.sw.cfg.Factory = func(name string, onEvent func(agent.Event)) (Runner, error) {
		h.mu.Lock()
		h.nextServer = srv
		h.mu.Unlock()
		return h.factory(name, onEvent)
	}
	w := h.watch()
	names := make(chan string, 20)
	go func() {
		defer close(names)
		for range cap(names) {
			names <- h.sw.Spawn()
		}
	}()
	w.until("the third EvSpawned", is(EvSpawned, "agent-3"))
	h.stop()
	for name := range names {
		if err := h.sw.Send(name, "hello"); !errors.Is(err, ErrStopped) {
			t.Fatalf("Send to %s after Stop: %v, want ErrStopped", name, err)
		}
	}
	if h.sw.Busy() {
		t.Fatal("busy after Stop")
	}
}

func TestInfoBusy(t *testing.T) {
	tests := []struct {
		in   Info
		want bool
	}{
		{Info{State: StateIdle}, false},
		{Info{State: StateThinking}, true},
		{Info{State: StateTool}, true},
		{Info{State: StateApproval}, true},
		{Info{State: StateError}, false},
		{Info{State: StateOffline}, false},
		{Info{State: StateIdle, Queued: 1}, true},
		{Info{State: StateIdle, Injected: 2}, false},
	}
	for _, tc := range tests {
		if got := tc.in.Busy(); got != tc.want {
			t.Errorf("%+v.Busy() = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestStatsAccount(t *testing.T) {
	var s Stats
	for i := range SeriesLen + 10 {
		s.account(agent.Event{Type: agent.EvDiet, Diet: &vault.DietEvent{NaiveTokens: 100 + i, SentTokens: 40, Refs: 2, SeenRefs: 1, AutoRestores: 1}})
	}
	s.account(agent.Event{Type: agent.EvUsage, Usage: &provider.Usage{PromptTokens: 30, CompletionTokens: 5, CachedTokens: 10}})
	s.account(agent.Event{Type: agent.EvPageFault})
	s.account(agent.Event{Type: agent.EvCompaction})
	s.account(agent.Event{Type: agent.EvDiet})  // no figures: not a call
	s.account(agent.Event{Type: agent.EvUsage}) // no figures
	s.account(agent.Event{Type: agent.EvTextDelta, Text: "ignored"})

	n := SeriesLen + 10
	naive := n*100 + n*(n-1)/2
	want := Stats{Calls: n, NaiveTokens: naive, SentTokens: 40 * n, Refs: 2 * n, SeenRefs: n, AutoRestores: n,
		PageFaults: 1, Compactions: 1, PromptTokens: 30, CompletionTokens: 5, CachedTokens: 10}
	got := s
	got.Series = nil
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stats\n got %+v\nwant %+v", got, want)
	}
	if len(s.Series) != SeriesLen || s.Series[0].Naive != 110 || s.Series[SeriesLen-1].Naive != 100+n-1 {
		t.Fatalf("series keeps %d points from %+v to %+v, want the last %d", len(s.Series), s.Series[0], s.Series[len(s.Series)-1], SeriesLen)
	}
	sum := s.Add(s)
	if sum.Calls != 2*n || sum.CachedTokens != 20 || len(sum.Series) != SeriesLen {
		t.Fatalf("Add: %+v", sum)
	}
	if p := (Stats{NaiveTokens: 200, SentTokens: 50}).SavedPercent(); p != 75 {
		t.Fatalf("SavedPercent = %v, want 75", p)
	}
	if p := (Stats{}).SavedPercent(); p != 0 {
		t.Fatalf("SavedPercent of nothing = %v", p)
	}
}
