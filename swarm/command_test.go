package swarm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestCommandsAnswerWithoutTheModel checks that /context and /compact
// typed to an agent are answered by the agent itself, in its turn, as
// EvCommand (shown in a reopened pane's transcript too), without a model
// call, and that a skill of the same name does not shadow them.
func TestCommandsAnswerWithoutTheModel(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	name, srv := h.spawn(providertest.TextStep("hello"))
	w := h.watch()
	h.send(name, "hi")
	w.until("EvFinished", is(EvFinished, name))
	h.send(name, " /context ")
	evs := of(name, w.until("EvFinished", is(EvFinished, name)))
	var ctx *agent.ContextView
	for _, e := range evs {
		if e.Type == EvCommand && e.Text == agent.CommandContext {
			ctx = e.Context
		}
	}
	if ctx == nil || ctx.Total == 0 || ctx.Messages != 3 || evs[len(evs)-1].Err != "" {
		t.Fatalf("no context answer: %s", describe(evs))
	}
	h.send(name, "/compact")
	evs = of(name, w.until("EvFinished", is(EvFinished, name)))
	var rep *agent.CompactReport
	for _, e := range evs {
		if e.Type == EvCommand {
			rep = e.Compact
		}
	}
	if rep == nil || rep.Compacted || !strings.Contains(rep.String(), "not compacted") {
		t.Fatalf("compact answer %+v: %s", rep, describe(evs))
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want only the first turn's", n)
	}
	tr, err := h.sw.Transcript(name)
	if err != nil || len(tr.Events) == 0 || tr.Events[len(tr.Events)-2].Type != EvCommand {
		t.Errorf("the transcript lacks the answer: %+v %v", tr.Events, err)
	}
}

// plainRunner runs turns but answers no commands.
type plainRunner struct{}

func (plainRunner) Run(context.Context, string) (string, error) { return "", nil }
func (plainRunner) Totals() agent.Totals                        { return agent.Totals{} }

// TestCommandsNeedAController checks that a runner that is not a
// Controller refuses the commands at Send, queueing nothing.
func TestCommandsNeedAController(t *testing.T) {
	sw := New(Config{Factory: func(string, func(agent.Event)) (Runner, error) { return plainRunner{}, nil }})
	defer sw.Stop()
	name := sw.Spawn()
	if err := sw.Send(name, "/context"); !errors.Is(err, ErrNoCommands) {
		t.Fatalf("Send(/context) = %v, want ErrNoCommands", err)
	}
	if in, _ := sw.Info(name); in.Queued != 0 {
		t.Fatalf("queued %d turns", in.Queued)
	}
}

// TestStatsCarryToolFigures checks that an agent's figures carry its
// per-tool figures after a turn.
func TestStatsCarryToolFigures(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	name, _ := h.spawn(providertest.ToolStep(call("c1", "list_files", map[string]any{})), providertest.TextStep("listed"))
	w := h.watch()
	h.send(name, "list the files")
	w.until("EvFinished", is(EvFinished, name))
	tools := h.info(name).Stats.Tools
	if len(tools) != 1 || tools[0].Name != "list_files" || tools[0].Calls != 1 || tools[0].OutputTokens == 0 {
		t.Fatalf("tool figures %+v", tools)
	}
}
