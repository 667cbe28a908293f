package diet

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/vault"
)

// segmented parses a message sent as <il:spans> and checks that it
// resolves through v to want; it fails the test for any other form.
func segmented(t *testing.T, v *vault.Vault, sent, want string) []vault.Span {
	t.Helper()
	id, n, parts, ok, err := vault.ParseSegmented(sent)
	if !ok || err != nil {
		t.Fatalf("not a segmented message (%v): %.300q", err, sent)
	}
	exact, err := vault.ResolveSpans(parts, v.Get)
	if err != nil || string(exact) != want || n != len(want) {
		t.Fatalf("segments of %s resolve to %d bytes (%v), want the %d original bytes", id, len(exact), err, len(want))
	}
	if got := Answer(v, nil, Fault{Op: "get", ID: id}); got != FormatExact(id, []byte(want)) {
		t.Fatalf("ctx_get %s does not return the whole message: %.200q", id, got)
	}
	return parts
}

func TestStateSendsRepeatedTracebackAsSegments(t *testing.T) {
	s, v := newState(t, smallParams())
	firstRun := "$ python reproduce.py\n" + traceback()
	s.Add(conversation(2)...)
	s.Add(Message{Role: "assistant", Content: "Reproducing.\n```\npython reproduce.py\n```"},
		Message{Role: "tool", Kind: "tool:shell", Content: firstRun})
	s.Add(conversation(6)[2:]...)
	if r := build(t, s); !r.Active {
		t.Fatal("the diet should be active after 14 tool rounds at a 1,500-token trigger")
	}
	rerun := "$ python reproduce.py  # after the edit\n" + traceback() + "exit status 1\n"
	s.Add(Message{Role: "assistant", Content: "Running it again.\n```\npython reproduce.py\n```"},
		Message{Role: "tool", Kind: "tool:shell", Content: rerun})
	r := build(t, s)
	last := len(r.Messages) - 1
	parts := segmented(t, v, r.Messages[last].Content, rerun)
	var seg vault.Span
	for _, p := range parts {
		if p.IsSeg() {
			seg = p
		}
	}
	if got := Answer(v, nil, Fault{Op: "get", ID: seg.ID}); got != FormatExact(seg.ID, []byte(firstRun)) {
		t.Fatalf("ctx_get of the segment's block does not return the first run whole: %.200q", got)
	}
	if 2*len(r.Messages[last].Content) > len(rerun) {
		t.Fatalf("segmented re-run is %d bytes of %d", len(r.Messages[last].Content), len(rerun))
	}
	if r2 := build(t, s); r2.Messages[last].Content != r.Messages[last].Content {
		t.Fatal("the segmented form changed on the next call")
	}
}

func TestStateHandoffSegmentedOnlyAfterItsTurn(t *testing.T) {
	s, v := newState(t, smallParams())
	task := taskText()
	s.Add(Message{Role: "system", Content: "You are the planner."}, Message{Role: "user", Content: "Solve this task:\n" + task})
	s.Add(conversation(5)[2:]...)
	build(t, s)
	handoff := "Reviewer, the planner was given this task:\n" + task + "Check the plan."
	h := s.Len()
	s.Add(Message{Role: "user", Content: handoff})
	if r := build(t, s); r.Messages[h].Content != handoff {
		t.Fatal("the current human turn was rewritten")
	}
	s.Add(Message{Role: "user", Content: "Go on."})
	sawSpans := false
	for round := 10; round < 40 && !sawSpans; round++ {
		s.Add(Message{Role: "assistant", Content: "Checking.\n```\npytest\n```"},
			Message{Role: "tool", Kind: "tool:shell", Content: toolOutput(round, 900)})
		sent := build(t, s).Messages[h].Content
		switch {
		case strings.HasPrefix(sent, "<"+vault.TagSpans):
			segmented(t, v, sent, handoff)
			sawSpans = true
		case sent != handoff:
			t.Fatalf("the former handoff went straight to %.120q", sent)
		}
	}
	if !sawSpans {
		t.Fatal("the former handoff was never sent as segments")
	}
}

func TestSpansOffSendsRepeatsExact(t *testing.T) {
	p := smallParams()
	p.Spans = false
	s, _ := newState(t, p)
	s.Add(conversation(8)...)
	build(t, s)
	rerun := "again\n" + traceback()
	s.Add(Message{Role: "tool", Kind: "tool:shell", Content: "first\n" + traceback()}, Message{Role: "tool", Kind: "tool:shell", Content: rerun})
	r := build(t, s)
	if got := r.Messages[len(r.Messages)-1].Content; strings.Contains(got, vault.TagSeg) {
		t.Fatalf("spans off, yet sent %.120q", got)
	}
}
