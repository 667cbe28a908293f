package team

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAgentsListedAndMessagedAcrossMembers(t *testing.T) {
	ms := startTeam(t, 2)
	var mu sync.Mutex
	var got []string
	deliver := func(member string) Deliver {
		return func(from, to, text string) error {
			if to != "agent-1" {
				return fmt.Errorf("no agent %s here", to)
			}
			mu.Lock()
			got = append(got, member+": "+from+" → "+to+": "+text)
			mu.Unlock()
			return nil
		}
	}
	var as []*Agents
	for _, m := range ms {
		var a *Agents
		eventually(t, "open the agents' bucket", teamWait, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var err error
			a, err = OpenAgents(ctx, m.node.JetStream(), m.node.Conn(), m.cfg.Name(), m.cfg.Member, 2, deliver(m.cfg.Member))
			return err
		})
		t.Cleanup(func() { _ = a.Close() })
		as = append(as, a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := as[1].Publish(ctx, []AgentState{{Session: "ws", Agent: "agent-1", State: "thinking"}}, false); err != nil {
		t.Fatal(err)
	}
	// Another member's view follows within moments (reads may come
	// from a replica).
	eventually(t, "m1 lists m2's agent", teamWait, func() error {
		list, err := as[0].List(ctx)
		if err != nil || len(list) != 1 || list[0].Member != "m2" || list[0].Agent != "agent-1" || list[0].State != "thinking" {
			return fmt.Errorf("m1 lists %+v, %v", list, err)
		}
		return nil
	})
	// The agent goes away: its entry does too.
	if err := as[1].Publish(ctx, nil, false); err != nil {
		t.Fatal(err)
	}
	eventually(t, "m1 sees the agent gone", teamWait, func() error {
		if list, err := as[0].List(ctx); err != nil || len(list) != 0 {
			return fmt.Errorf("after the agent left m1 lists %+v, %v", list, err)
		}
		return nil
	})

	if err := as[0].Send("agent-3", "agent-1", "m2", "the parser is yours"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(got) != 1 || got[0] != "m2: agent-3@m1 → agent-1: the parser is yours" {
		t.Fatalf("delivered %q", got)
	}
	mu.Unlock()
	if err := as[0].Send("agent-3", "agent-9", "m2", "hello"); err == nil || !strings.Contains(err.Error(), "no agent agent-9 here") {
		t.Fatalf("to an agent m2 lacks: %v", err)
	}
	if err := as[0].Send("agent-3", "agent-1", "m7", "hello"); err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("to a member nobody runs: %v", err)
	}
	if err := as[0].Send("agent-3", "agent-1", "m1", "hello"); err == nil {
		t.Fatal("a message to this member's own agent went through the team")
	}
}
