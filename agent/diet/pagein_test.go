package diet

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kwsdev/kws/vault"
)

// pageInMsg is the agent's transcript message for a page-in answer.
func pageInMsg(v *vault.Vault, id string) Message {
	return Message{Role: "tool", Kind: KindPageIn, Content: Answer(v, nil, Fault{Op: "get", ID: id})}
}

// TestPageInIsNeverEncoded pages in a block whose lines the span finder
// knows and whose text an earlier answer already sent: each answer still
// goes exact, or, while the same bytes stand exact above, as a note that
// says which message holds them. Once the source message becomes a ref,
// the answer is whole again.
func TestPageInIsNeverEncoded(t *testing.T) {
	s, v := newState(t, smallParams())
	msgs := conversation(8)
	s.Add(msgs...)
	r := build(t, s)
	if !r.Active || !strings.HasPrefix(r.Messages[3].Content, "<") {
		t.Fatalf("message 3 is still exact: %.100q", r.Messages[3].Content)
	}
	id := vault.IDFor([]byte(msgs[3].Content))
	want := FormatExact(id, []byte(msgs[3].Content))
	s.Add(Message{Role: "assistant", Content: ".ctx_get id=" + id}, pageInMsg(v, id))
	r = build(t, s)
	first := len(r.Messages) - 1
	if r.Messages[first].Content != want {
		t.Fatalf("page-in answer sent as %.300q", r.Messages[first].Content)
	}
	// Asked again: the first answer stands exact above.
	s.Add(Message{Role: "assistant", Content: ".ctx_get id=" + id}, pageInMsg(v, id))
	r = build(t, s)
	again := r.Messages[len(r.Messages)-1].Content
	if !strings.Contains(again, `repeated="true"`) || !strings.Contains(again, "message "+strconv.Itoa(first)+" ") || r.Messages[first].Content != want {
		t.Fatalf("the repeated answer: %.300q", again)
	}
	if !s.StandsExact(id) {
		t.Fatal("StandsExact denies the exact answer in the prompt")
	}
	// Enough new output ages both answers out: they become refs by the
	// block's id, never a seen ref or a segment, and resolve to the block
	// whether folded or elided.
	for _, m := range conversation(20)[2+2*8:] {
		s.Add(m)
	}
	r = build(t, s)
	for _, k := range []int{first, len(msgs) + 3} {
		c := r.Messages[k].Content
		if got := resolveMessage(t, v, r.Messages, k); got != msgs[3].Content {
			t.Fatalf("aged-out answer %d resolves to %.200q", k, got)
		}
		if r.Messages[k].Elided || c == FoldMarker {
			continue
		}
		if strings.Contains(c, "<il:") || !strings.Contains(c, id) {
			t.Fatalf("aged-out answer %d sent as %.200q", k, c)
		}
	}
}

// TestPageInOfAnExactMessageSaysWhere pages in a block whose message is
// still exact in the prompt: the answer says where it stands, and becomes
// the whole block once an epoch has made that message a ref.
func TestPageInOfAnExactMessageSaysWhere(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 100000
	s, v := newState(t, p)
	msgs := conversation(2)
	s.Add(msgs...)
	build(t, s)
	id := vault.IDFor([]byte(msgs[3].Content))
	s.Add(Message{Role: "assistant", Content: ".ctx_get id=" + id}, pageInMsg(v, id))
	r := build(t, s)
	last := r.Messages[len(r.Messages)-1].Content
	if !strings.Contains(last, `repeated="true" at=3/>`) || r.Messages[3].Content != msgs[3].Content {
		t.Fatalf("answer for a block exact above: %.300q", last)
	}
	if !s.StandsExact(id) {
		t.Fatal("StandsExact denies the exact message")
	}
}
