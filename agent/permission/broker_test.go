package permission

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// answerer answers every request from ch with decide(req) until ch closes.
func answerer(t *testing.T, b *Broker, ch <-chan Request, decide func(Request) Answer) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for r := range ch {
			if err := b.Answer(r.ID, decide(r)); err != nil && !errors.Is(err, ErrNotPending) {
				t.Error(err)
			}
		}
	}()
	return &wg
}

func TestHeadlessModes(t *testing.T) {
	tests := []struct {
		mode Mode
		want Answer
	}{
		{AutoAllow, Answer{Decision: AllowOnce, Reason: "allowed by --yes"}},
		{Unattended, Answer{Decision: Deny, Reason: UnattendedReason}},
	}
	for _, tt := range tests {
		got, err := NewBroker(tt.mode).Ask(context.Background(), Request{Tool: "shell"})
		if err != nil || got != tt.want {
			t.Errorf("mode %d: %+v, %v", tt.mode, got, err)
		}
	}
}

func TestConcurrentAskAnswer(t *testing.T) {
	b := NewBroker(Interactive)
	ch := b.Subscribe()
	wg := answerer(t, b, ch, func(r Request) Answer {
		if r.Args == "deny" {
			return Answer{Decision: Deny, Reason: "no " + r.ID}
		}
		return Answer{Decision: AllowOnce}
	})
	var asks sync.WaitGroup
	for i := 0; i < 64; i++ {
		asks.Add(1)
		go func() {
			defer asks.Done()
			args := "allow"
			if i%3 == 0 {
				args = "deny"
			}
			id := fmt.Sprintf("call-%d", i)
			a, err := b.Ask(context.Background(), Request{ID: id, Tool: fmt.Sprintf("tool%d", i), Args: args})
			switch {
			case err != nil:
				t.Error(err)
			case args == "deny" && (a.Decision != Deny || a.Reason != "no "+id):
				t.Errorf("%s: %+v", id, a)
			case args == "allow" && a.Decision != AllowOnce:
				t.Errorf("%s: %+v", id, a)
			}
		}()
	}
	asks.Wait()
	if p := b.Pending(); len(p) != 0 {
		t.Errorf("still pending: %v", p)
	}
	b.Close()
	wg.Wait()
}

func TestAllowSession(t *testing.T) {
	b := NewBroker(Interactive)
	ch := b.Subscribe()
	ctx := context.Background()
	// Two shell calls wait together; allowing one for the session
	// releases both, and later calls do not ask.
	results := make(chan Answer, 2)
	for _, id := range []string{"s1", "s2"} {
		go func() {
			a, err := b.Ask(ctx, Request{ID: id, Tool: "shell"})
			if err != nil {
				t.Error(err)
			}
			results <- a
		}()
	}
	first := <-ch
	for len(b.Pending()) < 2 {
		time.Sleep(time.Millisecond)
	}
	if err := b.Answer(first.ID, Answer{Decision: AllowSession}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if a := <-results; a.Decision != AllowSession {
			t.Errorf("answer %d = %+v", i, a)
		}
	}
	if !b.SessionAllowed("", "shell") || b.SessionAllowed("", "write_file") {
		t.Error("session memory is wrong")
	}
	a, err := b.Ask(ctx, Request{ID: "s3", Tool: "shell"})
	if err != nil || a.Decision != AllowSession {
		t.Errorf("later ask = %+v, %v", a, err)
	}
	if second := <-ch; second.ID == first.ID {
		t.Errorf("second delivery repeated %s", second.ID)
	}
	if err := b.Answer("s2", Answer{Decision: AllowOnce}); !errors.Is(err, ErrNotPending) {
		t.Errorf("answering a released request: %v", err)
	}
	// Another tool still asks.
	ctx2, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := b.Ask(ctx2, Request{ID: "w1", Tool: "write_file"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("write_file ask = %v, want a timeout", err)
	}
}

func TestAskCancel(t *testing.T) {
	b := NewBroker(Interactive)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := b.Ask(ctx, Request{ID: "c1", Tool: "shell"})
		done <- err
	}()
	ch := b.Subscribe() // a late subscriber still sees the pending request
	if r := <-ch; r.ID != "c1" {
		t.Fatalf("got %+v", r)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if err := b.Answer("c1", Answer{Decision: AllowOnce}); !errors.Is(err, ErrNotPending) {
		t.Errorf("answer after cancel = %v", err)
	}
	if len(b.Pending()) != 0 {
		t.Error("cancelled request still pending")
	}
}

func TestAnswerValidation(t *testing.T) {
	b := NewBroker(Interactive)
	go b.Ask(context.Background(), Request{ID: "v1", Tool: "shell"})
	for len(b.Pending()) == 0 {
		time.Sleep(time.Millisecond)
	}
	for _, d := range []Decision{Ask, Allow, Decision(9)} {
		if err := b.Answer("v1", Answer{Decision: d}); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("Answer(%v) = %v", d, err)
		}
	}
	if _, err := b.Ask(context.Background(), Request{ID: "v1", Tool: "shell"}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate id: %v", err)
	}
	if err := b.Answer("nope", Answer{Decision: Deny}); !errors.Is(err, ErrNotPending) {
		t.Errorf("unknown id: %v", err)
	}
	b.Close()
	if _, err := b.Ask(context.Background(), Request{Tool: "shell"}); !errors.Is(err, ErrClosed) {
		t.Errorf("ask after close: %v", err)
	}
	if _, ok := <-b.Subscribe(); ok {
		t.Error("subscription on a closed broker delivered")
	}
}

// TestAskCancelRacingCloseNeverHangs races context cancellation with
// Close: every Ask must return.
func TestAskCancelRacingCloseNeverHangs(t *testing.T) {
	for i := 0; i < 300; i++ {
		b := NewBroker(Interactive)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			b.Ask(ctx, Request{ID: "r", Tool: "shell"})
			close(done)
		}()
		for len(b.Pending()) == 0 {
			runtime.Gosched()
		}
		go cancel()
		b.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("iteration %d: Ask hung after cancel raced Close", i)
		}
	}
}

// TestGrantsAreScopedToOneAgent: allowing a tool for agent-1's session
// releases only agent-1's requests and never a teammate's, present or
// spawned later; allowing it for every agent is a separate answer.
func TestGrantsAreScopedToOneAgent(t *testing.T) {
	b := NewBroker(Interactive)
	ctx := context.Background()
	results := map[string]chan Answer{}
	ask := func(id, agent, tool string) {
		ch := make(chan Answer, 1)
		results[id] = ch
		go func() {
			a, err := b.Ask(ctx, Request{ID: id, Agent: agent, Tool: tool})
			if err != nil {
				a = Answer{Reason: err.Error()}
			}
			ch <- a
		}()
	}
	delivered := b.Subscribe()
	// waitAsked waits until n more requests have reached the front end,
	// that is, are pending.
	waitAsked := func(n int) {
		for range n {
			<-delivered
		}
	}
	ask("a1-1", "agent-1", "shell")
	ask("a1-2", "agent-1", "shell")
	ask("a2-1", "agent-2", "shell")
	ask("a2-2", "agent-2", "write_file")
	waitAsked(4)
	if err := b.Answer("a1-1", Answer{Decision: AllowSession}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a1-1", "a1-2"} {
		if a := <-results[id]; a.Decision != AllowSession {
			t.Errorf("%s = %+v, want AllowSession", id, a)
		}
	}
	if p := b.Pending(); len(p) != 2 || p[0].Agent != "agent-2" || p[1].Agent != "agent-2" {
		t.Fatalf("agent-2's requests were answered by agent-1's grant: pending %+v", p)
	}
	if b.SessionAllowed("agent-2", "shell") || b.SessionAllowed("agent-3", "shell") {
		t.Error("agent-1's grant leaked to a teammate")
	}
	ask("a3-1", "agent-3", "shell") // spawned after the grant: still asks
	waitAsked(1)
	if err := b.Answer("a3-1", Answer{Decision: AllowAll}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a3-1", "a2-1"} {
		if a := <-results[id]; a.Decision != AllowAll {
			t.Errorf("%s = %+v, want AllowAll", id, a)
		}
	}
	if p := b.Pending(); len(p) != 1 || p[0].ID != "a2-2" {
		t.Fatalf("AllowAll of shell must leave write_file pending: %+v", p)
	}
	if a, err := b.Ask(ctx, Request{ID: "a9-1", Agent: "agent-9", Tool: "shell"}); err != nil || a.Decision != AllowAll {
		t.Errorf("a later agent's shell call = %+v, %v; want allowed for every agent", a, err)
	}
	b.Revoke("agent-1")
	if b.SessionAllowed("agent-1", "write_file") {
		t.Error("a revoked agent kept a grant")
	}
	b.Close()
}

// TestAllowingEditsCoversBothEditTools: A (this agent's session) on a
// write_file allows edit_file too, as Claude Code's "allow edits" does;
// other tools still ask.
func TestAllowingEditsCoversBothEditTools(t *testing.T) {
	b := NewBroker(Interactive)
	defer b.Close()
	ch := b.Subscribe()
	done := make(chan Answer, 1)
	go func() {
		a, _ := b.Ask(context.Background(), Request{ID: "w1", Tool: "write_file", Agent: "agent-1"})
		done <- a
	}()
	<-ch
	if err := b.Answer("w1", Answer{Decision: AllowSession}); err != nil {
		t.Fatal(err)
	}
	<-done
	a, err := b.Ask(context.Background(), Request{Tool: "edit_file", Agent: "agent-1"})
	if err != nil || a.Decision != AllowSession {
		t.Fatalf("edit_file after allowing write_file: %+v %v", a, err)
	}
	if b.SessionAllowed("agent-1", "shell") || b.SessionAllowed("agent-2", "edit_file") {
		t.Fatal("the grant reached another tool or another agent")
	}
}
