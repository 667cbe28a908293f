package swarm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// newBoardRig returns a board on a fresh vault, published by a swarm with
// no agents, and a subscription to that swarm's events.
func newBoardRig(t *testing.T) (*Board, <-chan Event) {
	t.Helper()
	sw := New(Config{})
	t.Cleanup(sw.Stop)
	events, cancel := sw.Subscribe()
	t.Cleanup(cancel)
	return NewBoard(vaulttest.MustOpen(t), sw), events
}

// nextBoardEvent waits for the next event, which must be EvBoard.
func nextBoardEvent(t *testing.T, events <-chan Event) Event {
	t.Helper()
	select {
	case e := <-events:
		if e.Type != EvBoard {
			t.Fatalf("event %+v, want EvBoard", e)
		}
		return e
	case <-time.After(waitLimit):
		t.Fatal("no EvBoard event")
	}
	return Event{}
}

func TestBoardPublishesChanges(t *testing.T) {
	b, events := newBoardRig(t)
	steps := []struct {
		do    func() (vault.Task, error)
		agent string
	}{
		{func() (vault.Task, error) { return b.Add("", "write docs", "") }, ""},
		{func() (vault.Task, error) { return b.For("agent-1").Claim("t1") }, "agent-1"},
		{func() (vault.Task, error) { return b.For("agent-1").Update("t1", "half done", "") }, "agent-1"},
		{func() (vault.Task, error) { return b.Done("t1", "") }, ""},
	}
	for i, s := range steps {
		task, err := s.do()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if e := nextBoardEvent(t, events); e.Agent != s.agent || e.Text != task.ID {
			t.Errorf("step %d: event %+v, want agent %q task %s", i, e, s.agent, task.ID)
		}
	}
	if _, err := b.Claim("t1", "agent-2"); !errors.Is(err, vault.ErrTaskDone) {
		t.Fatalf("claiming a done task: %v", err)
	}
	select {
	case e := <-events:
		t.Errorf("a failed change published %+v", e)
	case <-time.After(50 * time.Millisecond):
	}
	tasks, err := b.List()
	if err != nil || len(tasks) != 1 || tasks[0].Status != vault.TaskDone || tasks[0].Owner != "agent-1" ||
		tasks[0].Detail != "half done" {
		t.Fatalf("List = %+v, %v", tasks, err)
	}
}

func TestBoardClaimedByExactlyOneAgent(t *testing.T) {
	b, events := newBoardRig(t)
	if _, err := b.Add("", "the one task", ""); err != nil {
		t.Fatal(err)
	}
	nextBoardEvent(t, events)
	const agents = 12
	var mu sync.Mutex
	var winners []string
	var wg sync.WaitGroup
	for i := 1; i <= agents; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ab tools.Board = b.For(fmt.Sprintf("agent-%d", i))
			_, err := ab.Claim("t1")
			switch {
			case err == nil:
				mu.Lock()
				winners = append(winners, ab.Agent())
				mu.Unlock()
			case !errors.Is(err, vault.ErrClaimed):
				t.Errorf("%s: %v", ab.Agent(), err)
			}
		}()
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("winners %v, want exactly one", winners)
	}
	if e := nextBoardEvent(t, events); e.Agent != winners[0] {
		t.Errorf("event from %q, want the winner %q", e.Agent, winners[0])
	}
	select {
	case e := <-events:
		t.Errorf("a lost claim published %+v", e)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestBoardThroughTodoTool(t *testing.T) {
	b, events := newBoardRig(t)
	todo, ok := tools.ByName("todo")
	if !ok {
		t.Fatal("no todo tool")
	}
	run := func(name, args string) tools.Result {
		t.Helper()
		res, err := todo.Run(context.Background(), &tools.Env{Board: b.For(name)}, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run("agent-1", `{"action":"add","text":"fix the build"}`)
	nextBoardEvent(t, events)
	run("agent-1", `{"action":"claim","id":1}`)
	nextBoardEvent(t, events)
	res := run("agent-2", `{"action":"claim","id":1}`)
	if !res.IsError || !strings.Contains(res.Text, "(claimed by agent-1)") {
		t.Errorf("agent-2 claiming agent-1's task:\n%s", res.Text)
	}
}

func TestBoardWithoutSwarm(t *testing.T) {
	b := NewBoard(vaulttest.MustOpen(t), nil)
	if task, err := b.Add("agent-1", "quiet", ""); err != nil || task.ID != "t1" {
		t.Fatalf("Add = %+v, %v", task, err)
	}
}
