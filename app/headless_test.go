package app

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/vault"
)

// headlessFor is a headless run of task in a fresh workspace against srv,
// without memory or a sidecar, its warnings and events collected.
func headlessFor(t *testing.T, srv *providertest.Server, task string, warnings *[]string, events *[]agent.Event) Headless {
	t.Helper()
	data, home, ws := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"KWS_BASE_URL": srv.URL(), "KWS_MODEL": providertest.Model, "KWS_API_KEY": "test-key"}
	return Headless{DataDir: data, ConfigHome: filepath.Join(home, ".config"), Workspace: ws, Task: task,
		Getenv: func(k string) string { return env[k] },
		OpenVault: func() (*vault.Vault, func(), error) {
			v, err := vault.OpenDir(data, nil)
			if err != nil {
				return nil, nil, err
			}
			return v, func() { _ = v.Close() }, nil
		},
		OpenSidecar: func() (sidecar.Engine, error) { return sidecar.Heuristic{}, sidecar.ErrNoModel },
		OpenMemory:  func() (*memory.Store, error) { return nil, errors.New("memory is off in this test") },
		StartMCP:    func(config.Config, string) MCPClient { t.Fatal("no MCP server is configured"); return nil },
		Warn:        func(msg string) { *warnings = append(*warnings, msg) },
		OnEvent:     func(e agent.Event) { *events = append(*events, e) },
		Command:     func(*Agent, string) error { t.Fatal("not a /command"); return nil },
	}
}

// TestRunHeadlessRunsATask: the task reaches the model, the answer comes
// back as events, the run names its transcript, done, and what it could
// not use (memory) is said; a run with neither task nor resume opens
// nothing.
func TestRunHeadlessRunsATask(t *testing.T) {
	srv := providertest.New(t, providertest.TextStep("the answer"))
	var warnings []string
	var events []agent.Event
	h := headlessFor(t, srv, "the task", &warnings, &events)
	run, err := RunHeadless(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "done" || run.Transcript == "" {
		t.Fatalf("run %+v", run)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Messages[len(reqs[0].Messages)-1].Content != "the task" {
		t.Fatalf("the model got %+v", reqs)
	}
	var text strings.Builder
	for _, e := range events {
		text.WriteString(e.Text)
	}
	if !strings.Contains(text.String(), "the answer") {
		t.Fatalf("the events do not carry the answer: %+v", events)
	}
	if len(warnings) != 1 || warnings[0] != "memory off: memory is off in this test" {
		t.Fatalf("warnings %q", warnings)
	}

	h.Task, h.OpenVault = "", func() (*vault.Vault, func(), error) {
		t.Fatal("a run with no task opened the vault")
		return nil, nil, nil
	}
	if _, err := RunHeadless(context.Background(), h); !errors.Is(err, ErrNoTask) {
		t.Fatalf("no task: %v", err)
	}
}
