package panes

import (
	"os"
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
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// resumeLimit bounds each wait for the swarm; it only decides when a
// test on a loaded machine gives up.
const resumeLimit = 60 * time.Second

// resumedSwarm is a swarm of real agents over the scripted model srv,
// each built on history, in a workspace holding notes.txt.
func resumedSwarm(t *testing.T, srv *providertest.Server, history []provider.Message) *swarm.Swarm {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("[red]note\x1b[31m from before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return realSwarm(t, ws, srv.URL(), -1, history)
}

// realSwarm is a swarm of real agents working in ws, each built on
// history, whose model is at baseURL, each failed call retried retries
// times without waiting.
func realSwarm(t *testing.T, ws, baseURL string, retries int, history []provider.Message) *swarm.Swarm {
	t.Helper()
	v, broker := vaulttest.MustOpen(t), permission.NewBroker(permission.AutoAllow)
	sw := swarm.New(swarm.Config{Vault: v, Broker: broker, Factory: func(name string, onEvent func(agent.Event)) (swarm.Runner, error) {
		client, err := provider.New(provider.Config{BaseURL: baseURL, APIKey: "test-key", Model: "test-model",
			NativeTools: true, MaxRetries: retries, Sleep: func(time.Duration) {}})
		if err != nil {
			return nil, err
		}
		return agent.New(agent.Config{Name: name, Workspace: ws, Client: client, Model: "test-model",
			Profile: profile.Profile{ID: "test-model", ContextWindow: 128000, CompletionReserve: 4096},
			Diet:    diet.Defaults(), Vault: v, Policy: permission.DefaultPolicy(), Broker: broker,
			OnEvent: onEvent, History: history})
	}})
	sw.Start()
	t.Cleanup(sw.Stop)
	return sw
}

// heldStep answers text once release is called, and reports its
// request's arrival on arrived.
func heldStep(text string) (step providertest.Step, arrived <-chan struct{}, release func()) {
	in, open := make(chan struct{}), make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(open) }) }
	return providertest.Step{Text: text, Match: func(providertest.RecordedRequest) error {
		close(in)
		<-open
		return nil
	}}, in, release
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(resumeLimit):
		t.Fatalf("%s did not happen within %v", what, resumeLimit)
	}
}

// untilFinished reads events until the agent's turn ends and returns them.
func untilFinished(t *testing.T, events <-chan swarm.Event, name string) []swarm.Event {
	t.Helper()
	var got []swarm.Event
	timer := time.NewTimer(resumeLimit)
	defer timer.Stop()
	for {
		select {
		case e := <-events:
			got = append(got, e)
			if e.Type == swarm.EvFinished && e.Agent == name {
				return got
			}
		case <-timer.C:
			t.Fatalf("no end of %s's turn within %v", name, resumeLimit)
		}
	}
}

// TestAgentPaneOpensOnAResumedAgent restores an agent killed in the middle
// of a tool call and opens its pane while the resumed turn runs, or once
// it has ended. Like the workstation, it hands the pane every event of the
// swarm's one subscription, those published before the pane opened
// included. Either way the pane shows the same transcript, each thing
// once.
func TestAgentPaneOpensOnAResumedAgent(t *testing.T) {
	history := []provider.Message{
		{Role: "user", Content: "read the notes"},
		{Role: "assistant", Content: "Reading them.", ToolCalls: []provider.ToolCall{toolCall("c1", "read_file", map[string]string{"path": "x.go"})}},
	}
	var screens []string
	for _, midTurn := range []bool{true, false} {
		held, arrived, release := heldStep("picked up where I was")
		srv := providertest.New(t, providertest.ToolStep(toolCall("c2", "read_file", map[string]string{"path": "notes.txt"})), held)
		sw := resumedSwarm(t, srv, history)
		// Before the server closes, which waits for its handlers.
		t.Cleanup(release)
		events, stop := sw.Subscribe()
		t.Cleanup(stop)
		name := sw.SpawnResume("", "agent-1", "sess-1")
		waitFor(t, arrived, "the resumed turn's second model call")
		var p *AgentPane
		if midTurn {
			p = NewAgentPane(testEnv(), name, sw, func(string) error { return nil })
		}
		release()
		delivered := untilFinished(t, events, name)
		if !midTurn {
			p = NewAgentPane(testEnv(), name, sw, func(string) error { return nil })
		}
		for _, e := range delivered {
			p.OnEvent(e)
		}
		text := screenText(render(t, p, 100, 40))
		at := -1
		for _, want := range []string{"› read the notes", "Reading them.", "⏺ read_file  x.go", "interrupted: kws stopped",
			"— resumed session sess-1 —", "⏺ read_file  notes.txt", "[red]note from before", "picked up where I was"} {
			i := strings.Index(text, want)
			if i <= at || strings.Count(text, want) != 1 {
				t.Fatalf("mid-turn %v: %q is not shown once, after what precedes it:\n%s", midTurn, want, text)
			}
			at = i
		}
		if strings.Contains(text, "◌") || strings.Contains(text, "\x1b") {
			t.Fatalf("mid-turn %v: a call is left running or an escape reached the screen:\n%s", midTurn, text)
		}
		screens = append(screens, text)
	}
	if screens[0] != screens[1] {
		t.Fatalf("opened mid-turn:\n%s\nopened after the turn:\n%s", screens[0], screens[1])
	}
}
