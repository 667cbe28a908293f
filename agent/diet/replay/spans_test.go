package replay

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// TestLongSessionSpansResolveExactly replays all fixtures as one session at
// the defaults and checks every prompt of every call: messages sent as
// <il:spans> occur, and each resolves through the vault to its exact bytes.
// Without spans the same replay sends more tokens over all calls.
func TestLongSessionSpansResolveExactly(t *testing.T) {
	long := Concat("long", loadFixtures(t))
	total := map[bool]int{}
	for _, spans := range []bool{true, false} {
		p := diet.Defaults()
		p.Spans = spans
		segmented := map[int]bool{}
		o := runVerified(t, long, p, func(res diet.Result) {
			for i, m := range res.Messages {
				if strings.HasPrefix(m.Content, "<"+vault.TagSpans+" ") {
					segmented[i] = true
				}
			}
		})
		if spans != (len(segmented) > 0) {
			t.Fatalf("spans=%v, yet %d messages were sent segmented", spans, len(segmented))
		}
		total[spans] = o.Row.SentTokensTotal
	}
	if total[true] >= total[false] {
		t.Fatalf("all calls with spans sent %d tokens, without %d", total[true], total[false])
	}
}

// TestVerifyRejectsWrongSegments checks that the lossless check catches a
// segment that resolves to other bytes and an envelope naming another block.
func TestVerifyRejectsWrongSegments(t *testing.T) {
	v := vaulttest.MustOpen(t)
	src := strings.Repeat("line of earlier output\n", 40)
	msg := "new\n" + src
	ids, err := v.PutMany([]vault.Block{{Data: []byte(src)}, {Data: []byte(msg)}})
	if err != nil {
		t.Fatal(err)
	}
	orig := []diet.Message{{Role: "tool", Content: msg}}
	send := func(id string, parts ...vault.Span) []diet.Message {
		return []diet.Message{{Role: "tool", Content: vault.FormatSegmented(id, len(msg), vault.EncodeSpans(parts))}}
	}
	good := send(ids[1], vault.Span{Lit: []byte("new\n")}, vault.Span{ID: ids[0], At: 0, N: len(src)})
	if err := Verify(v, orig, good); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]diet.Message{
		"short":    send(ids[1], vault.Span{Lit: []byte("new\n")}, vault.Span{ID: ids[0], At: 0, N: len(src) - 1}),
		"shifted":  send(ids[1], vault.Span{Lit: []byte("new\n")}, vault.Span{ID: ids[0], At: 1, N: len(src) - 1}, vault.Span{Lit: []byte("\n")}),
		"envelope": send(ids[0], vault.Span{Lit: []byte("new\n")}, vault.Span{ID: ids[0], At: 0, N: len(src)}),
		"outside":  send(ids[1], vault.Span{Lit: []byte("new\n")}, vault.Span{ID: ids[0], At: 0, N: len(src) + 1}),
	} {
		if err := Verify(v, orig, bad); err == nil {
			t.Errorf("%s: Verify accepted %q", name, bad[0].Content)
		}
	}
}
