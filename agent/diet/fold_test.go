package diet

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kwsdev/kws/vault"
)

// resolveMessage returns the exact content message i of prompt stands
// for: the text itself, the block of its single <ctx>/<il:seen> ref, or,
// inside a run (folded or elided), its part of the run's block resolved
// the same way, through nested runs.
func resolveMessage(t *testing.T, v *vault.Vault, prompt []Message, i int) string {
	t.Helper()
	var view []FoldPart
	for k, m := range prompt {
		if !m.Elided {
			view = append(view, FoldPart{Index: k, Role: m.Role, Text: m.Content})
		}
	}
	return resolveIn(t, v, view, i)
}

// resolveIn resolves message i in view, the texts sent for messages in
// order (a prompt, or a run's parts), elided ones absent.
func resolveIn(t *testing.T, v *vault.Vault, view []FoldPart, i int) string {
	t.Helper()
	k := len(view) - 1
	for k >= 0 && view[k].Index > i {
		k--
	}
	if k < 0 {
		t.Fatalf("message %d is in no run", i)
	}
	text := view[k].Text
	if view[k].Index != i || text == FoldMarker {
		for k >= 0 && view[k].Text == FoldMarker {
			k--
		}
		if k < 0 {
			t.Fatalf("message %d is folded with no run before it", i)
		}
		return resolveIn(t, v, runParts(t, v, view[k].Text), i)
	}
	if refs := vault.ParseRefs(text); len(refs) == 1 && refs[0].Kind == KindRun {
		return resolveIn(t, v, runParts(t, v, text), i)
	}
	if refs := vault.ParseRefs(text); len(refs) == 1 && refs[0].String() == text {
		got, err := v.Get(refs[0].ID)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		return string(got)
	}
	return text
}

// runParts returns the parts of the run opened by ref.
func runParts(t *testing.T, v *vault.Vault, ref string) []FoldPart {
	t.Helper()
	refs := vault.ParseRefs(ref)
	if len(refs) != 1 || refs[0].Kind != KindRun {
		t.Fatalf("not a run's ref: %.100q", ref)
	}
	data, err := v.Get(refs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := ParseFold(data)
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// TestFoldBoundsThePromptAndLosesNothing replays a long session of small
// messages and bulky outputs call by call at a small trigger: refs and
// small messages alone would fill it, so old messages fold into runs.
// Every prompt stays within the trigger plus its recent window, every
// message resolves to its exact content, a run's messages are sent as the
// marker, and calls between epochs extend the previous prompt.
func TestFoldBoundsThePromptAndLosesNothing(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 3000
	s, v := newState(t, p)
	msgs := []Message{{Role: "system", Content: "You are a coding agent."},
		{Role: "user", Content: "Fix the failing tests."}}
	for i := range 120 {
		msgs = append(msgs, Message{Role: "assistant", Content: fmt.Sprintf("Step %d: look at module %d.\n```\ncat mod%d.py\n```", i, i, i)})
		out := fmt.Sprintf("mod%d.py: 12 lines, nothing unusual in step %d", i, i)
		if i%5 == 0 {
			out = toolOutput(i, 1500)
		}
		msgs = append(msgs, Message{Role: "tool", Kind: "tool:shell", Content: out, Source: fmt.Sprintf("cat mod%d.py", i)})
	}
	var prev Result
	folded := 0
	for n := 3; n <= len(msgs); n += 2 {
		s.Add(msgs[s.Len():n]...)
		r := build(t, s)
		recent := 0
		for _, tok := range r.Tokens[max(0, n-p.Recent):] {
			recent += tok
		}
		if r.Event.SentTokens > p.TriggerTokens+recent {
			t.Fatalf("call at %d messages: prompt %d tokens over trigger %d + recent window %d", n, r.Event.SentTokens, p.TriggerTokens, recent)
		}
		folded = 0
		for i, m := range r.Messages {
			if got := resolveMessage(t, v, r.Messages, i); got != msgs[i].Content {
				t.Fatalf("call at %d messages: message %d resolves to %.80q", n, i, got)
			}
			if m.Content == FoldMarker || m.Elided {
				folded++
			}
		}
		if !r.Event.Epoch && prev.Messages != nil && prev.Active == r.Active {
			for i := range prev.Messages {
				if prev.Messages[i] != r.Messages[i] {
					t.Fatalf("call at %d messages without an epoch changed message %d", n, i)
				}
			}
		}
		prev = r
	}
	if folded < len(msgs)/2 {
		t.Fatalf("only %d of %d messages folded", folded, len(msgs))
	}
	if r := prev.Messages[1]; r.Content != msgs[1].Content && !strings.HasPrefix(r.Content, `<ctx k="run"`) && r.Content != FoldMarker {
		t.Fatalf("old human turn sent as %.80q", r.Content)
	}
}

// TestFoldWithholdsSecrets folds a short credentials read (below the
// minimum block, so its exact text goes into the run's block) and a
// bulky .env dump: the run is marked sensitive, its ref and vault
// summary quote nothing of it, no secret reaches the prompt, and nothing
// sensitive is auto-restored.
func TestFoldWithholdsSecrets(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 2500
	s, v := newState(t, p)
	secret, pass := "AKIAIOSFODNN7EXAMPLE", "Wq9vTz2LkP4x"
	env := "$ cat .env\nAWS_ACCESS_KEY_ID=" + secret + "\n" + strings.Repeat("DEBUG=1\n", 60) + "error: aws credentials failed\n"
	s.Add(Message{Role: "system", Content: "sys"}, Message{Role: "user", Content: "check the logins"},
		Message{Role: "assistant", Content: "reading it"}, Message{Role: "tool", Content: "db:5432:app:app:" + pass + "\n", Sensitive: true},
		Message{Role: "assistant", Content: "```\ncat .env\n```"}, Message{Role: "tool", Content: env})
	for i := range 6 {
		s.Add(Message{Role: "assistant", Content: "next"}, Message{Role: "tool", Content: toolOutput(i, 1500)})
	}
	s.Add(Message{Role: "user", Content: "show me the exact aws credentials error from .env and the db login, why did it fail?"})
	r := build(t, s)
	k := 3
	for k > 0 && r.Messages[k].Content == FoldMarker {
		k--
	}
	head := r.Messages[k].Content
	refs := vault.ParseRefs(head)
	if len(refs) != 1 || refs[0].Kind != KindRun || !refs[0].Sensitive || r.Messages[3].Content != FoldMarker {
		t.Fatalf("credentials not folded into a sensitive run: %q, %q", head, r.Messages[3].Content)
	}
	for _, m := range r.Messages {
		if strings.Contains(m.Content, secret) || strings.Contains(m.Content, pass) {
			t.Fatalf("secret reached the prompt: %q", m.Content)
		}
	}
	meta, err := v.Meta(refs[0].ID)
	if err != nil || !meta.Sensitive || strings.Contains(meta.Summary+meta.Command, pass) || strings.Contains(refs[0].Summary, "db:") {
		t.Fatalf("run meta %+v, ref summary %q (%v)", meta, refs[0].Summary, err)
	}
	if r.Event.AutoRestores != 0 {
		t.Fatal("a sensitive block was auto-restored")
	}
}

// TestFoldBlockRoundTrips encodes parts whose texts hold headers, newlines
// and nothing at all, and splits them back exactly; malformed blocks fail
// with ErrFoldMalformed.
func TestFoldBlockRoundTrips(t *testing.T) {
	parts := []FoldPart{{Index: 3, Role: "assistant", Text: "a\n<il:msg i=9 n=1 role=x>\nz\n"},
		{Index: 4, Role: "tool", Text: ""}, {Index: 5, Role: "user", Text: "\n\n"}}
	got, err := ParseFold(EncodeFold(parts))
	if err != nil || fmt.Sprint(got) != fmt.Sprint(parts) {
		t.Fatalf("round trip: %v, %+v", err, got)
	}
	for _, bad := range []string{"", "x", "<il:msg i=1 n=5 role=u>\nab\n", "<il:msg i=1 n=2 role=u>\nabc", "<il:msg i=a n=1 role=u>\nb\n", "<il:msg i=1 n=-1 role=u>\n\n"} {
		if _, err := ParseFold([]byte(bad)); !errors.Is(err, ErrFoldMalformed) {
			t.Errorf("ParseFold(%q) = %v, want ErrFoldMalformed", bad, err)
		}
	}
}

// FuzzParseFold checks that ParseFold never panics and that whatever it
// accepts encodes back to the same bytes.
func FuzzParseFold(f *testing.F) {
	f.Add(EncodeFold([]FoldPart{{Index: 1, Role: "user", Text: "hi"}, {Index: 2, Role: "assistant", Text: "<ctx id=\"ctx:0\" n=1/>"}}))
	f.Add([]byte("<il:msg i=0 n=0 role=>\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, err := ParseFold(data)
		if err != nil {
			return
		}
		if again := EncodeFold(parts); !bytes.Equal(again, data) {
			t.Fatalf("re-encoding changed %q to %q", data, again)
		}
	})
}
