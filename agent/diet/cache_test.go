package diet

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/vault"
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
	s, _ := newState(t, p)
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
	s, _ := newState(t, p)
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

// TestRepeatIsSeenBeforeTheTrigger checks that an exact repeat goes as
// <il:seen/> at once, far below the trigger, explaining itself so that the
// decoder prompt (and with it a break of the cached prefix) is not needed
// yet; once the diet is active a repeat is the bare ref.
func TestRepeatIsSeenBeforeTheTrigger(t *testing.T) {
	p := smallParams()
	s, v := newState(t, p)
	out := toolOutput(1, 2000)
	s.Add(Message{Role: "system", Content: "sys"}, Message{Role: "user", Content: "run it twice"},
		Message{Role: "tool", Content: out}, Message{Role: "assistant", Content: "again"}, Message{Role: "tool", Content: out})
	r := build(t, s)
	if r.Messages[2].Content != out || !strings.HasPrefix(r.Messages[4].Content, "<il:seen ") ||
		!strings.Contains(r.Messages[4].Content, "exact repeat") || r.Active {
		t.Fatalf("repeat not seen at once below the trigger: active %v, %.120q", r.Active, r.Messages[4].Content)
	}
	if got, err := v.Get(vault.ParseRefs(r.Messages[4].Content)[0].ID); err != nil || string(got) != out {
		t.Fatal("seen ref does not resolve to the repeated output")
	}
	if r.Event.SeenRefs != 1 || r.Event.SentTokens >= r.Event.NaiveTokens {
		t.Fatalf("seen repeat saved nothing: %+v", r.Event)
	}
	for _, m := range conversation(12)[2:] {
		s.Add(m)
	}
	if r = build(t, s); !r.Active {
		t.Fatal("the diet never became active")
	}
	s.Add(Message{Role: "tool", Content: out})
	r = build(t, s)
	// The first copy has joined a run by now, so no seen ref could point
	// at it: the repeat goes as its own ref.
	if last := r.Messages[len(r.Messages)-1].Content; !strings.HasPrefix(last, "<ctx ") || strings.Contains(last, "exact repeat") {
		t.Fatalf("repeat once active: %.120q", last)
	}
	if r.Messages[2].Content != FoldMarker && !strings.Contains(r.Messages[2].Content, `k="run"`) {
		t.Fatalf("the first copy did not join a run: %.120q", r.Messages[2].Content)
	}
}

// TestIngestionKeepsSummaryURLAndHeadingLines checks that compacting a
// huge log keeps, beside head, tail and errors, the lines that summarize
// tests, hold a URL or head a section.
func TestIngestionKeepsSummaryURLAndHeadingLines(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		switch i {
		case 500:
			b.WriteString("=================== FAILURES ===================\n")
		case 700:
			b.WriteString("see https://example.com/build/42 for the full report\n")
		case 900:
			b.WriteString("## Section two\n")
		case 1100:
			b.WriteString("============ 3 failed, 120 passed in 12.5s ============\n")
		case 1300:
			b.WriteString("Ran 57 tests in 0.420s\n")
		default:
			b.WriteString("collecting item " + strings.Repeat("x", i%7) + " of 2000\n")
		}
	}
	got := Compact(b.String(), "<ctx id=\"ctx:000000000000\" n=1/>")
	for _, want := range []string{"= FAILURES =", "https://example.com/build/42", "## Section two", "3 failed, 120 passed", "Ran 57 tests"} {
		if !strings.Contains(got, want) {
			t.Errorf("compacted log lacks %q", want)
		}
	}
	if strings.Count(got, "\n") > 130 {
		t.Fatalf("compacted log kept %d lines", strings.Count(got, "\n"))
	}
}

// TestOlderHumanTurnsAndHandoffsAreEligible checks that only the system
// prompt, pinned text and the current human turn are kept: an older human
// turn and a handoff are externalized like any other message.
func TestOlderHumanTurnsAndHandoffsAreEligible(t *testing.T) {
	p := smallParams()
	p.Fold = false // each message's own ref is under test
	s, v := newState(t, p)
	task := "Fix the token refresh in auth/token.py. " + strings.Repeat("The refresh must keep the session alive. ", 20)
	handoff := "[handoff from planner to coder]\n\n## Task\n\n" + task
	msgs := []Message{{Role: "system", Content: "You are a coding agent."},
		{Role: "user", Kind: "pinned", Content: strings.Repeat("Project rule. ", 60), Pinned: true},
		{Role: "user", Content: task}, {Role: "user", Kind: "handoff", Content: handoff}}
	msgs = append(msgs, conversation(8)[2:]...)
	current := Message{Role: "user", Content: "Now also " + task}
	msgs = append(msgs, current)
	msgs = append(msgs, conversation(12)[2:]...)
	s.Add(msgs...)
	r := build(t, s)
	for i, want := range map[int]bool{0: true, 1: true, 2: false, 3: false, 20: true} {
		if exact := r.Messages[i].Content == msgs[i].Content; exact != want {
			t.Errorf("message %d (%s %s) exact=%v, want %v", i, msgs[i].Role, msgs[i].Kind, exact, want)
		}
	}
	for _, i := range []int{2, 3} {
		if got, err := v.Get(vault.ParseRefs(r.Messages[i].Content)[0].ID); err != nil || string(got) != msgs[i].Content {
			t.Fatalf("message %d does not resolve exactly", i)
		}
	}
}
