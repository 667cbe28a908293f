package swarm

import (
	"encoding/json"
	"errors"
	"path/filepath"
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

// waitLimit bounds every wait for an event. It only decides when a test
// gives up: a loaded 2-core machine running the race detector can take
// many seconds for three agents' turns.
const waitLimit = 60 * time.Second

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
	// nextHistory is the transcript the next agent resumes.
	nextHistory []provider.Message
	workspaces  map[string]string
	shared      string // the workspace every agent gets, when set
}

// newHarness starts a swarm whose broker answers in mode.
func newHarness(t *testing.T, mode permission.Mode) *harness {
	t.Helper()
	h := &harness{t: t, vault: vaulttest.MustOpen(t), broker: permission.NewBroker(mode),
		done: make(chan struct{}), workspaces: map[string]string{}}
	h.sw = New(Config{Factory: h.factory, Vault: h.vault, Broker: h.broker, Dir: h.workspace})
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
	srv, failure, history := h.nextServer, h.nextErr, h.nextHistory
	h.nextServer, h.nextErr, h.nextHistory = nil, nil, nil
	h.mu.Unlock()
	if srv == nil {
		if failure == nil {
			failure = errors.New("no model configured: set KWS_BASE_URL")
		}
		return nil, failure
	}
	h.mu.Lock()
	ws := h.shared
	h.mu.Unlock()
	if ws == "" {
		var err error
		if ws, err = filepath.EvalSymlinks(h.t.TempDir()); err != nil {
			return nil, err
		}
	}
	client, err := provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "test-key", Model: "test-model",
		NativeTools: true, MaxRetries: -1, Sleep: func(time.Duration) {}})
	if err != nil {
		return nil, err
	}
	a, err := agent.New(agent.Config{Name: name, Workspace: ws, Client: client, Model: "test-model",
		Profile: profile.Profile{ID: "test-model", ContextWindow: 128000, CompletionReserve: 4096},
		Diet:    diet.Defaults(), Vault: h.vault, Policy: permission.DefaultPolicy(), Broker: h.broker,
		OnEvent: onEvent, Mailbox: h.sw.Mailbox(name), Notices: h.sw.Notices(name), History: history})
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

// share makes every agent spawned from now on work in one workspace.
func (h *harness) share() {
	ws, err := filepath.EvalSymlinks(h.t.TempDir())
	if err != nil {
		h.t.Fatal(err)
	}
	h.mu.Lock()
	h.shared = ws
	h.mu.Unlock()
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
