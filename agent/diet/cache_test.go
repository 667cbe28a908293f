package diet

import (
	"strings"
	"testing"
)

// recentTokens sums the sent tokens of the newest n messages of r.
func recentTokens(r Result, n int) int {
	sum := 0
	for _, t := range r.Tokens[max(0, len(r.Tokens)-n):] {
		sum += t
	}
	return sum
}

// TestEpochsComeWithHysteresis checks the bound and the batching: no
// prompt exceeds the trigger plus its recent window, and epochs are few:
// each frees enough that the next several calls are append-only again.
// (The bound needs refs and small messages alone to stay under the
// trigger, as they do here.)
func TestEpochsComeWithHysteresis(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 4000
	s, _ := newSession(t, p)
	msgs := conversation(50)
	epochs, calls := 0, 0
	for n := 3; n <= len(msgs); n += 2 {
		s.Add(msgs[s.Len():n]...)
		r := build(t, s)
		calls++
		if bound := p.TriggerTokens + recentTokens(r, p.Recent); r.Event.SentTokens > bound {
			t.Fatalf("call %d: prompt %d tokens over the trigger plus the recent window (%d)", calls, r.Event.SentTokens, bound)
		}
		if r.Event.Epoch {
			epochs++
		}
	}
	if epochs < 2 || 3*epochs > calls {
		t.Fatalf("%d epochs in %d calls: want a few, batched", epochs, calls)
	}
}

// TestAutoRestoreHoldsUntilEpoch checks that a restore, once chosen for a
// turn, stays byte-identical until the next epoch, so the cached prefix
// survives it.
func TestAutoRestoreHoldsUntilEpoch(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 4000
	failing := "$ pytest tests/test_auth.py\n" + strings.Repeat("tests/test_auth.py::test_ok PASSED\n", 20) +
		"FAILED tests/test_auth.py::test_token_refresh - AssertionError: token expired\n1 failed, 20 passed in 0.3s\n"
	s, _ := newSession(t, p)
	s.Add(Message{Role: "system", Content: "You are a coding agent."},
		Message{Role: "user", Content: "why does test_token_refresh fail in test_auth.py with the AssertionError?"},
		Message{Role: "assistant", Content: "```\npytest tests/test_auth.py\n```"}, Message{Role: "tool", Content: failing})
	more := conversation(30)[2:]
	var prev Result
	restored := 0
	for k := 0; k < len(more); k += 2 {
		s.Add(more[k : k+2]...)
		r := build(t, s)
		restored += r.Event.AutoRestores
		if prev.Messages != nil && !r.Event.Epoch && prev.Active == r.Active {
			for i := range prev.Messages {
				if prev.Messages[i] != r.Messages[i] {
					t.Fatalf("call %d without an epoch changed message %d", k/2, i)
				}
			}
		}
		prev = r
	}
	if restored == 0 {
		t.Fatal("the failing block was never restored")
	}
}

func TestRestoreNeedsLowConfidenceOrHighPriority(t *testing.T) {
	cases := []struct {
		d    Description
		want bool
	}{
		{Description{Confidence: 0.9, Priority: "normal"}, false},
		{Description{Confidence: 0.3, Priority: "normal"}, true},
		{Description{Confidence: 0.9, Priority: "high"}, true},
		{Description{Confidence: 0.1, Priority: "high", Sensitive: true}, false},
	}
	for _, tc := range cases {
		if got := restorable(&tc.d); got != tc.want {
			t.Errorf("%+v: restorable %v, want %v", tc.d, got, tc.want)
		}
	}
}
