package permission

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/tools"
)

// TestFanOutNeverDrops has a slow subscriber that reads nothing until
// many more requests than its buffer are pending, and a fast one that
// answers; both see every request in order.
func TestFanOutNeverDrops(t *testing.T) {
	const n = 5 * subscriberBuffer
	b := NewBroker(Interactive)
	slow := b.Subscribe()
	fast := b.Subscribe()
	var asks sync.WaitGroup
	for i := 0; i < n; i++ {
		asks.Add(1)
		go func() {
			defer asks.Done()
			if _, err := b.Ask(context.Background(), Request{ID: fmt.Sprintf("r%03d", i), Tool: "shell"}); err != nil {
				t.Error(err)
			}
		}()
	}
	for len(b.Pending()) < n {
		time.Sleep(time.Millisecond)
	}
	var fastSeen []string
	for i := 0; i < n; i++ {
		r := <-fast
		fastSeen = append(fastSeen, r.ID)
		if err := b.Answer(r.ID, Answer{Decision: AllowOnce}); err != nil {
			t.Error(err)
		}
	}
	asks.Wait()
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		select {
		case r := <-slow:
			seen[r.ID] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("slow subscriber got only %d of %d", i, n)
		}
	}
	if len(seen) != n || len(fastSeen) != n {
		t.Errorf("slow saw %d distinct, fast %d, want %d", len(seen), len(fastSeen), n)
	}
	b.Close()
	for range slow {
	}
	for range fast {
	}
}

func TestUnsubscribe(t *testing.T) {
	b := NewBroker(Interactive)
	gone := b.Subscribe()
	kept := b.Subscribe()
	b.Unsubscribe(gone)
	if _, ok := <-gone; ok {
		t.Fatal("unsubscribed channel delivered")
	}
	go b.Ask(context.Background(), Request{ID: "u1", Tool: "edit_file"})
	if r := <-kept; r.ID != "u1" {
		t.Errorf("kept got %+v", r)
	}
	b.Unsubscribe(gone) // a second call is harmless
}

func TestCloseReleasesAsks(t *testing.T) {
	b := NewBroker(Interactive)
	ch := b.Subscribe()
	errs := make(chan error)
	go func() {
		_, err := b.Ask(context.Background(), Request{ID: "x", Tool: "shell"})
		errs <- err
	}()
	<-ch
	b.Close()
	b.Close()
	if err := <-errs; !errors.Is(err, ErrClosed) {
		t.Errorf("pending ask after Close: %v", err)
	}
	if _, ok := <-ch; ok {
		t.Error("subscription not closed")
	}
}

func TestCheck(t *testing.T) {
	policy := DefaultPolicy()
	policy.Apply(map[string]string{"grep": "deny"}, []string{"git status"})
	interactive := func(a Answer) *Broker {
		b := NewBroker(Interactive)
		ch := b.Subscribe()
		go func() {
			for r := range ch {
				b.Answer(r.ID, a)
			}
		}()
		t.Cleanup(b.Close)
		return b
	}
	tests := []struct {
		name    string
		broker  *Broker
		access  tools.Access
		req     Request
		allowed bool
		reason  string
	}{
		{"read-only allowed", nil, tools.ReadOnly, Request{Tool: "read_file"}, true, "allowed by the permission policy"},
		{"policy deny", NewBroker(AutoAllow), tools.ReadOnly, Request{Tool: "grep"}, false, "the grep tool is denied by the permissions in the configuration (~/.config/kws/config.toml or the workspace's .kws/config.toml)"},
		{"prefix allowed", nil, tools.Executes, Request{Tool: "shell", Preview: "git status -s"}, true, "allowed by the permission policy"},
		{"no broker", nil, tools.Executes, Request{Tool: "shell", Preview: "rm x"}, false, UnattendedReason},
		{"unattended", NewBroker(Unattended), tools.Writes, Request{Tool: "write_file"}, false, UnattendedReason},
		{"yes", NewBroker(AutoAllow), tools.Executes, Request{Tool: "shell", Preview: "make"}, true, "allowed by --yes"},
		{"user allows", interactive(Answer{Decision: AllowOnce}), tools.Writes, Request{Tool: "edit_file"}, true, "allowed by the user"},
		{"user allows session", interactive(Answer{Decision: AllowSession}), tools.Writes, Request{Tool: "edit_file"}, true, "allowed by the user for this agent's session"},
		{"user denies", interactive(Answer{Decision: Deny}), tools.Writes, Request{Tool: "edit_file"}, false, "the user denied this call"},
		{"user explains", interactive(Answer{Decision: Deny, Reason: "edit b.go instead"}), tools.Writes, Request{Tool: "edit_file"}, false, "edit b.go instead"},
	}
	for _, tt := range tests {
		allowed, reason, err := Check(context.Background(), policy, tt.broker, tt.access, tt.req)
		if err != nil || allowed != tt.allowed || reason != tt.reason {
			t.Errorf("%s: Check = %v, %q, %v; want %v, %q", tt.name, allowed, reason, err, tt.allowed, tt.reason)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Check(ctx, nil, NewBroker(Interactive), tools.Writes, Request{Tool: "write_file"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Check: %v", err)
	}
}
