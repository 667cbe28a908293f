package provider_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

func TestChatRetries(t *testing.T) {
	tests := []struct {
		name       string
		steps      []providertest.Step
		wantText   string
		wantSleeps func([]time.Duration) bool
		wantReset  bool
	}{
		{
			name: "429 with Retry-After seconds",
			steps: []providertest.Step{
				{Status: http.StatusTooManyRequests, RetryAfter: "2"},
				providertest.TextStep("after the rate limit"),
			},
			wantText:   "after the rate limit",
			wantSleeps: func(s []time.Duration) bool { return reflect.DeepEqual(s, []time.Duration{2 * time.Second}) },
		},
		{
			name: "429 with Retry-After beyond the cap",
			steps: []providertest.Step{
				{Status: http.StatusTooManyRequests, RetryAfter: "3600"},
				providertest.TextStep("capped"),
			},
			wantText:   "capped",
			wantSleeps: func(s []time.Duration) bool { return reflect.DeepEqual(s, []time.Duration{time.Minute}) },
		},
		{
			name: "500 then success",
			steps: []providertest.Step{
				{Status: http.StatusInternalServerError},
				providertest.TextStep("recovered"),
			},
			wantText:   "recovered",
			wantSleeps: func(s []time.Duration) bool { return len(s) == 1 && s[0] >= 0 && s[0] < 500*time.Millisecond },
		},
		{
			name: "stream cut mid-answer",
			steps: []providertest.Step{
				{Text: "this first attempt will be cut off", CutAfter: 3},
				providertest.TextStep("the second attempt"),
			},
			wantText:   "the second attempt",
			wantSleeps: func(s []time.Duration) bool { return len(s) == 1 },
			wantReset:  true,
		},
		{
			name: "stream cut after the last text chunk",
			steps: []providertest.Step{
				{Text: "short", CutAfter: 2},
				providertest.TextStep("complete"),
			},
			wantText:   "complete",
			wantSleeps: func(s []time.Duration) bool { return len(s) == 1 },
			wantReset:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, tt.steps...)
			res, err := h.chat(t, userRequest("go"))
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if res.Content != tt.wantText || res.Attempts != 2 {
				t.Errorf("content = %q, attempts = %d; want %q, 2", res.Content, res.Attempts, tt.wantText)
			}
			if !tt.wantSleeps(h.sleeps) {
				t.Errorf("sleeps = %v", h.sleeps)
			}
			if h.streamedText() != tt.wantText {
				t.Errorf("streamed text after restarts = %q, want %q", h.streamedText(), tt.wantText)
			}
			restarts := 0
			for _, d := range h.deltas {
				if d.Restart {
					restarts++
				}
			}
			if tt.wantReset != (restarts == 1) || restarts > 1 {
				t.Errorf("saw %d restart deltas, want restart=%t", restarts, tt.wantReset)
			}
		})
	}
}

func TestChatGivesUpAfterMaxRetries(t *testing.T) {
	steps := []providertest.Step{{Status: 502}, {Status: 503}, {Status: 500}}
	h := newHarness(t, func(c *provider.Config) { c.MaxRetries = 2 }, steps...)
	res, err := h.chat(t, userRequest("go"))
	if err == nil {
		t.Fatal("Chat succeeded, want an error")
	}
	if !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("error = %v, want it to name 3 attempts and the last status", err)
	}
	if res.Attempts != 3 || len(h.sleeps) != 2 || len(h.srv.Requests()) != 3 {
		t.Errorf("attempts = %d, sleeps = %v, requests = %d", res.Attempts, h.sleeps, len(h.srv.Requests()))
	}
}

func TestChatAttemptTimeout(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		steps      []providertest.Step
		wantErr    bool
	}{
		{"no retry", -1, []providertest.Step{{Text: "late", Delay: 5 * time.Second}}, true},
		{"retried", 1, []providertest.Step{{Text: "late", Delay: 5 * time.Second}, providertest.TextStep("on time")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(c *provider.Config) {
				c.Timeout = 150 * time.Millisecond
				c.MaxRetries = tt.maxRetries
			}, tt.steps...)
			start := time.Now()
			res, err := h.chat(t, userRequest("go"))
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("Chat took %v, want the attempt timeout to cut it short", elapsed)
			}
			if !tt.wantErr {
				if err != nil || res.Content != "on time" || res.Attempts != 2 {
					t.Errorf("res = %+v, err = %v", res, err)
				}
				return
			}
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timeout") {
				t.Errorf("error = %v, want a deadline error that mentions the timeout", err)
			}
		})
	}
}

// TestTimeoutIsIdleNotTotal streams an answer that takes about three
// timeouts in total but never pauses for one: it must not be cut.
func TestTimeoutIsIdleNotTotal(t *testing.T) {
	h := newHarness(t, func(c *provider.Config) {
		c.Timeout = 300 * time.Millisecond
		c.MaxRetries = -1
	}, providertest.Step{Text: strings.Repeat("slow but steady ", 8), ChunkSize: 8, ChunkDelay: 60 * time.Millisecond})
	start := time.Now()
	res, err := h.chat(t, userRequest("go"))
	if err != nil || !strings.HasPrefix(res.Content, "slow but steady") {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	if time.Since(start) < 600*time.Millisecond {
		t.Fatalf("stream finished in %v; the test needs it to outlast the timeout", time.Since(start))
	}
}

func TestChatHonoursCallerCancel(t *testing.T) {
	srv := providertest.New(t, providertest.Step{Text: "never", Delay: 5 * time.Second})
	c, err := provider.New(provider.Config{BaseURL: srv.URL(), Model: providertest.Model})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := c.Chat(ctx, userRequest("go"), nil)
	if !errors.Is(err, context.DeadlineExceeded) || res.Attempts != 1 {
		t.Errorf("err = %v, attempts = %d; want the caller's deadline after one attempt", err, res.Attempts)
	}
}
