package swarm

import (
	"testing"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

func TestPauseHoldsTurnsUntilResume(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	name, srv := h.spawn(providertest.TextStep("one"))
	w := h.watch()
	if err := h.sw.Pause(name); err != nil {
		t.Fatal(err)
	}
	h.send(name, "first")
	if in := h.info(name); !in.Paused || in.Queued != 1 || in.State != StateIdle {
		t.Fatalf("paused with a turn queued: %+v", in)
	}
	// A second agent runs to the end while the first holds its turn: the
	// held turn has had every chance to start.
	other, _ := h.spawn(providertest.TextStep("other done"))
	h.send(other, "go")
	w.until("the other agent's end", is(EvFinished, other))
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a paused agent called its model %d times", n)
	}
	if err := h.sw.Resume(name); err != nil {
		t.Fatal(err)
	}
	ev := w.until("the held turn's end", is(EvFinished, name))
	if fin := ev[len(ev)-1]; fin.Text != "one" || fin.Info.Paused {
		t.Fatalf("after Resume: %+v", fin)
	}
}

func TestRestartStartsAFreshAgent(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	name, _ := h.spawn(providertest.TextStep("before"))
	w := h.watch()
	h.send(name, "remember the word kiwi")
	w.until("the first turn", is(EvFinished, name))
	fresh := providertest.New(t, providertest.TextStep("after"))
	t.Cleanup(h.stop)
	h.mu.Lock()
	h.nextServer = fresh
	h.mu.Unlock()
	if err := h.sw.Restart(name); err != nil {
		t.Fatal(err)
	}
	h.send(name, "what was the word?")
	ev := w.until("the turn after the restart", is(EvFinished, name))
	if fin := ev[len(ev)-1]; fin.Text != "after" || fin.Err != "" {
		t.Fatalf("after restart: %+v", fin)
	}
	for _, m := range fresh.Requests()[0].Messages {
		if m.Content == "remember the word kiwi" {
			t.Fatal("the restarted agent kept its old history")
		}
	}
	if in := h.info(name); in.Stats.Calls != 2 {
		t.Fatalf("the figures did not carry on: %d calls", in.Stats.Calls)
	}
}

func TestRestartRevivesAnOfflineAgent(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	name := h.spawnOffline(nil)
	w := h.watch()
	srv := providertest.New(t, providertest.TextStep("online now"))
	t.Cleanup(h.stop)
	h.mu.Lock()
	h.nextServer = srv
	h.mu.Unlock()
	if err := h.sw.Restart(name); err != nil {
		t.Fatal(err)
	}
	h.send(name, "hello")
	ev := w.until("the revived agent's turn", is(EvFinished, name))
	if fin := ev[len(ev)-1]; fin.Text != "online now" {
		t.Fatalf("%+v", fin)
	}
}
