package swarm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

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
	s.account(agent.Event{Type: agent.EvUsage, Usage: &provider.Usage{PromptTokens: 30, CompletionTokens: 5, CachedTokens: 10},
		Cost: &agent.Cost{PromptTokens: 30, CachedTokens: 10, Weighted: 21, NaiveTokens: 60, NaiveCachedTokens: 50, NaiveWeighted: 15, Reported: 1, Calls: 1}})
	s.account(agent.Event{Type: agent.EvPageFault})
	s.account(agent.Event{Type: agent.EvCompaction})
	s.account(agent.Event{Type: agent.EvDiet})  // no figures: not a call
	s.account(agent.Event{Type: agent.EvUsage}) // no figures
	s.account(agent.Event{Type: agent.EvTextDelta, Text: "ignored"})

	n := SeriesLen + 10
	naive := n*100 + n*(n-1)/2
	want := Stats{Calls: n, NaiveTokens: naive, SentTokens: 40 * n, Refs: 2 * n, SeenRefs: n, AutoRestores: n,
		PageFaults: 1, Compactions: 1, PromptTokens: 30, CompletionTokens: 5, CachedTokens: 10,
		Cost: agent.Cost{PromptTokens: 30, CachedTokens: 10, Weighted: 21, NaiveTokens: 60, NaiveCachedTokens: 50, NaiveWeighted: 15, Reported: 1, Calls: 1}}
	got := s
	got.Series = nil
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stats\n got %+v\nwant %+v", got, want)
	}
	if len(s.Series) != SeriesLen || s.Series[0].Naive != 110 || s.Series[SeriesLen-1].Naive != 100+n-1 {
		t.Fatalf("series keeps %d points from %+v to %+v, want the last %d", len(s.Series), s.Series[0], s.Series[len(s.Series)-1], SeriesLen)
	}
	sum := s.Add(s)
	if sum.Calls != 2*n || sum.CachedTokens != 20 || sum.Cost.Weighted != 42 || sum.CostPercent() != 140 || len(sum.Series) != SeriesLen {
		t.Fatalf("Add: %+v", sum)
	}
	if p := (Stats{NaiveTokens: 200, SentTokens: 50}).SavedPercent(); p != 75 {
		t.Fatalf("SavedPercent = %v, want 75", p)
	}
	if p := (Stats{}).SavedPercent(); p != 0 {
		t.Fatalf("SavedPercent of nothing = %v", p)
	}
}

// TestParallelAgentsLoseNoBlockAndStoreSharedOutputOnce has three agents
// run, at once, a big command of their own and the same big command: the
// vault ends with one block per distinct output, each exact.
func TestParallelAgentsLoseNoBlockAndStoreSharedOutputOnce(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	var names []string
	for i := range 3 {
		name, _ := h.spawn(
			providertest.ToolStep(call("own", "shell", map[string]any{"command": fmt.Sprintf("seq %d 9000", i+1)})),
			providertest.ToolStep(call("shared", "shell", map[string]any{"command": "seq 100 9100"})),
			providertest.TextStep("done"))
		names = append(names, name)
	}
	w := h.watch()
	for _, n := range names {
		h.send(n, "run the commands")
	}
	finished := map[string]bool{}
	w.until("three EvFinished", func(e Event) bool {
		if e.Type == EvFinished {
			if e.Err != "" {
				t.Errorf("%s: %s", e.Agent, e.Err)
			}
			finished[e.Agent] = true
		}
		return len(finished) == 3
	})
	var metas []vault.Meta
	if err := h.vault.List(func(m vault.Meta) error { metas = append(metas, m); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(metas) != 4 {
		t.Fatalf("%d blocks in the vault, want 3 own outputs and 1 shared", len(metas))
	}
	for _, m := range metas {
		data, err := h.vault.Get(m.ID)
		if err != nil || vault.IDFor(data) != m.ID && !strings.HasPrefix(m.ID, vault.IDFor(data)) {
			t.Fatalf("block %s is not exact: %v", m.ID, err)
		}
	}
}
