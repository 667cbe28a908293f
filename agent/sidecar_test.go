package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/sidecar"
)

// routeTo is a router with a fixed verdict, or an error.
type routeTo struct {
	direct bool
	err    error
}

func (r routeTo) Route(context.Context, string) (sidecar.Route, error) {
	return sidecar.Route{Direct: r.direct, Confidence: 1}, r.err
}

func TestRouterDecidesTheToolSchemas(t *testing.T) {
	for _, tc := range []struct {
		name   string
		router Router
		full   bool
	}{
		{"default heuristic on a question", nil, false},
		{"a router saying tool work", routeTo{direct: false}, true},
		{"a router saying direct", routeTo{direct: true}, false},
		{"a failing router offers every tool", routeTo{direct: true, err: errors.New("model gone")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, func(c *Config) { c.Router = tc.router }, providertest.TextStep("ok"))
			r.run("What is a goroutine?")
			got := len(r.srv.Requests()[0].Tools)
			if full := got == len(r.a.cfg.Tools); full != tc.full {
				t.Fatalf("%d of %d tool schemas sent, want full=%v", got, len(r.a.cfg.Tools), tc.full)
			}
		})
	}
}

func TestCriticNotesTheRequestTheUserApproves(t *testing.T) {
	broker := permission.NewBroker(permission.Interactive)
	r := newRig(t, func(c *Config) { c.Broker = broker; c.Critic = sidecar.Heuristic{} },
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "rm -rf build"})),
		providertest.TextStep("done"))
	reqs := broker.Subscribe()
	go func() {
		req := <-reqs
		if !strings.Contains(req.Note, "deletes files") {
			t.Errorf("request note %q", req.Note)
		}
		_ = broker.Answer(req.ID, permission.Answer{Decision: permission.Deny})
	}()
	r.run("clean the build")
}

// recallMemory is a Memory with a fixed hint that records what it saw.
type recallMemory struct {
	mu       sync.Mutex
	hint     string
	observed []string
}

func (m *recallMemory) Recall(context.Context, string) (string, error) { return m.hint, nil }
func (m *recallMemory) Search(context.Context, string, string, int) ([]tools.MemoryHit, error) {
	return []tools.MemoryHit{{ID: "mem:1", Text: "tabs", Kind: "preference", Scope: "project", Source: "user", Score: 0.9}}, nil
}
func (m *recallMemory) Save(context.Context, string, string, string) (string, string, error) {
	return "add", "mem:2", nil
}
func (m *recallMemory) Observe(_ context.Context, turn string, index int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.observed = append(m.observed, fmt.Sprintf("%d:%s", index, turn))
}

func TestMemoryHintRidesAfterTheTurn(t *testing.T) {
	mem := &recallMemory{hint: "<memory note=\"hints, not evidence\">\n- [preference] tabs\n</memory>"}
	r := newRig(t, func(c *Config) { c.Memory = mem }, providertest.TextStep("ok"))
	r.run("indent this please")
	if got := r.lastMessage(0).Content; got != "indent this please\n\n"+mem.hint {
		t.Fatalf("user turn sent as %q", got)
	}
	if len(mem.observed) != 1 || mem.observed[0] != "1:indent this please" {
		t.Fatalf("observed %q", mem.observed)
	}
	mem.hint = ""
	r.srv.Push(providertest.ToolStep(call("m1", "memory_search", map[string]any{"query": "indent"})), providertest.TextStep("tabs"))
	r.run("thanks; how do I indent?")
	if got := r.lastMessage(1).Content; got != "thanks; how do I indent?" {
		t.Fatalf("with nothing recalled the turn is %q", got)
	}
	if len(mem.observed) != 2 || mem.observed[1] != "2:thanks; how do I indent?" {
		t.Fatalf("the second turn was observed as %q", mem.observed)
	}
	if got := r.lastMessage(2).Content; !strings.Contains(got, "mem:1") || !strings.Contains(got, "tabs") {
		t.Fatalf("memory_search through the agent's memory answered %q", got)
	}
}
