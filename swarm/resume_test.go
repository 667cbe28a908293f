package swarm

import (
	"context"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/transcript"
)

func TestSpawnResumeAnswersTheCutToolCallAndGoesOn(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	srv := providertest.New(t, providertest.TextStep("picked up where I was"))
	t.Cleanup(h.stop)
	h.mu.Lock()
	h.nextServer = srv
	h.nextHistory = []provider.Message{
		{Role: "user", Content: "read x.go"},
		{Role: "assistant", ToolCalls: []provider.ToolCall{call("c1", "read_file", map[string]string{"path": "x.go"})}},
	}
	h.mu.Unlock()
	w := h.watch()
	name := h.sw.SpawnResume("coder", "agent-7", "sess-1")
	if name != "agent-7" || h.sw.ResumeSession(name) != "sess-1" || h.sw.Role(name) != "coder" {
		t.Fatalf("SpawnResume gave %q, session %q, role %q", name, h.sw.ResumeSession(name), h.sw.Role(name))
	}
	ev := w.until("the resumed turn's end", is(EvFinished, name))
	if fin := ev[len(ev)-1]; fin.Text != "picked up where I was" || fin.Err != "" {
		t.Fatalf("the resumed turn finished with %+v", fin)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want the one that resumes", len(reqs))
	}
	msgs := reqs[0].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || last.ToolCallID != "c1" || !strings.HasPrefix(last.Content, "interrupted:") {
		t.Fatalf("the cut tool call was answered %+v", last)
	}
	// Later agents never take a restored agent's name.
	h.mu.Lock()
	h.nextErr = context.Canceled
	h.mu.Unlock()
	if got := []string{h.sw.Spawn(), h.sw.SpawnResume("", "agent-7", "")}; got[0] != "agent-8" || got[1] != "agent-9" {
		t.Fatalf("the next agents are %v, want agent-8 and agent-9", got)
	}
}

// sessionRunner is a runner that records a session and never resumes.
type sessionRunner struct{ sess *transcript.Transcript }

func (r sessionRunner) Run(context.Context, string) (string, error) { return "ok", nil }
func (r sessionRunner) Totals() agent.Totals                        { return agent.Totals{} }
func (r sessionRunner) Session() *transcript.Transcript             { return r.sess }

func TestInfoNamesTheSessionAndRestartForgetsTheResume(t *testing.T) {
	data := t.TempDir()
	var resumed []string
	var sw *Swarm
	sw = New(Config{Factory: func(name string, _ func(agent.Event)) (Runner, error) {
		resumed = append(resumed, sw.ResumeSession(name))
		sess, err := transcript.Create(data, t.TempDir())
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { sess.Close() })
		return sessionRunner{sess}, nil
	}})
	t.Cleanup(sw.Stop)
	name := sw.SpawnResume("", "", "old-session")
	in, err := sw.Info(name)
	if err != nil || in.Session == "" {
		t.Fatalf("Info = %+v, %v; want the runner's session", in, err)
	}
	if err := sw.Restart(name); err != nil {
		t.Fatal(err)
	}
	after, _ := sw.Info(name)
	if after.Session == in.Session || sw.ResumeSession(name) != "" {
		t.Fatalf("after Restart: session %q (was %q), resume %q; want a new session and no resume", after.Session, in.Session, sw.ResumeSession(name))
	}
	if len(resumed) != 2 || resumed[0] != "old-session" || resumed[1] != "" {
		t.Fatalf("the factory was asked to resume %q, want old-session then a fresh start", resumed)
	}
}

// TestSeedStats gives a restored agent its old figures, which its own
// calls then add to; an agent that made a call keeps its own, and an
// unknown agent is an error.
func TestSeedStats(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	name, _ := h.spawn(providertest.TextStep("one"))
	old := Stats{Calls: 7, NaiveTokens: 9000, SentTokens: 4000, Series: []Point{{Naive: 9000, Sent: 4000}}}
	if err := h.sw.SeedStats(name, old); err != nil {
		t.Fatal(err)
	}
	if got := h.info(name).Stats; got.Calls != 7 || got.SentTokens != 4000 || len(got.Series) != 1 {
		t.Fatalf("seeded stats %+v", got)
	}
	w := h.watch()
	h.send(name, "go on")
	w.until("EvFinished", is(EvFinished, name))
	again := h.info(name).Stats
	if again.Calls != 8 || again.NaiveTokens <= old.NaiveTokens || len(again.Series) != 2 {
		t.Fatalf("a call after the seed: %+v, want it added to the seeded figures", again)
	}
	if err := h.sw.SeedStats(name, Stats{Calls: 1}); err != nil {
		t.Fatal(err)
	}
	if got := h.info(name).Stats; got.Calls != again.Calls || got.NaiveTokens != again.NaiveTokens {
		t.Fatalf("a second seed replaced figures the agent made: %+v, had %+v", got, again)
	}
	if err := h.sw.SeedStats("agent-99", old); err == nil {
		t.Fatal("seeding an unknown agent succeeded")
	}
}
