package diet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

func newState(t testing.TB, p Params) (*State, *vault.Vault) {
	t.Helper()
	v := vaulttest.MustOpen(t)
	s, err := NewState(p, v, tokens.Default(), "test", "s1")
	if err != nil {
		t.Fatal(err)
	}
	return s, v
}

func smallParams() Params {
	p := Defaults()
	p.TriggerTokens = 1500
	p.Recent = 6
	return p
}

// toolOutput returns a distinct, realistic tool output of about n bytes.
func toolOutput(i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ pytest tests/test_mod%d.py\n", i)
	for j := 0; b.Len() < n; j++ {
		fmt.Fprintf(&b, "tests/test_mod%d.py::test_case_%d PASSED [%d%%]\n", i, j, j)
	}
	return b.String()
}

// conversation builds a system prompt, a user turn and n tool rounds.
func conversation(n int) []Message {
	msgs := []Message{
		{Role: "system", Content: "You are a coding agent."},
		{Role: "user", Content: "Run the tests and tell me what is going on."},
	}
	for i := 0; i < n; i++ {
		msgs = append(msgs,
			Message{Role: "assistant", Content: fmt.Sprintf("Running module %d.\n```\npytest tests/test_mod%d.py\n```", i, i)},
			Message{Role: "tool", Kind: "tool:shell", Content: toolOutput(i, 1500)})
	}
	return msgs
}

func build(t testing.TB, s *State) Result {
	t.Helper()
	r, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBelowTriggerEverythingIsExact(t *testing.T) {
	s, _ := newState(t, Defaults())
	msgs := conversation(3)
	s.Add(msgs...)
	r := build(t, s)
	for i, m := range r.Messages {
		if m.Content != msgs[i].Content {
			t.Fatalf("message %d changed below the trigger", i)
		}
	}
	if r.Active || r.Event.SentTokens != r.Event.NaiveTokens {
		t.Fatalf("inactive diet should send naive tokens: %+v", r.Event)
	}
}

// TestMonotoneAndPrefixStable feeds a conversation call by call and checks
// that a ref never reverts, that pinned and current-user messages never
// change, that the recent window stays exact, and that between epochs each
// prompt extends the previous one.
func TestMonotoneAndPrefixStable(t *testing.T) {
	p := smallParams()
	// The decoder prompt (about 450 tokens) joins the prompt at the first
	// epoch: a trigger well above it keeps this test about batching.
	p.TriggerTokens = 2000
	p.Fold = false // a fold rewrites refs once more; TestFold covers it
	s, v := newState(t, p)
	msgs := conversation(20)
	var prev Result
	wasRef := map[int]string{}
	epochs := 0
	for n := 3; n <= len(msgs); n += 2 {
		s.Add(msgs[s.Len():n]...)
		r := build(t, s)
		for i, m := range r.Messages {
			if i == 0 || i == 1 {
				if m.Content != msgs[i].Content {
					t.Fatalf("call %d: pinned/current turn %d changed", n, i)
				}
			}
			if i >= n-p.Recent && m.Content != msgs[i].Content && !strings.HasPrefix(m.Content, "<il:v1") {
				t.Fatalf("call %d: recent message %d not exact: %.80q", n, i, m.Content)
			}
			if old, ok := wasRef[i]; ok && m.Content != old {
				t.Fatalf("call %d: externalized message %d changed back", n, i)
			}
			if strings.HasPrefix(m.Content, "<ctx ") || strings.HasPrefix(m.Content, "<il:seen") {
				wasRef[i] = m.Content
				id := vault.ParseRefs(m.Content)[0].ID
				if got, err := v.Get(id); err != nil || string(got) != msgs[i].Content {
					t.Fatalf("ref of message %d does not resolve exactly", i)
				}
			}
		}
		if r.Event.Epoch {
			epochs++
		} else if prev.Messages != nil && prev.Active == r.Active {
			for i := range prev.Messages {
				if prev.Messages[i] != r.Messages[i] {
					t.Fatalf("call %d without an epoch changed message %d", n, i)
				}
			}
		}
		prev = r
	}
	if len(wasRef) == 0 || epochs < 2 {
		t.Fatalf("expected several epochs with refs, got %d epochs, %d refs", epochs, len(wasRef))
	}
	if epochs > len(msgs)/4 {
		t.Fatalf("%d epochs for %d messages: epochs should batch", epochs, len(msgs))
	}
}

func TestSameInputSameBytes(t *testing.T) {
	msgs := conversation(12)
	var out [2]string
	for k := range out {
		s, _ := newState(t, smallParams())
		s.Add(msgs...)
		out[k] = fmt.Sprint(build(t, s).Messages)
	}
	if out[0] != out[1] {
		t.Fatal("identical input gave different prompts")
	}
}

func TestExactRepeatBecomesSeen(t *testing.T) {
	p := smallParams()
	p.Fold = false // the repeat's own form is under test
	s, _ := newState(t, p)
	msgs := conversation(8)
	dup := msgs[3]
	msgs = append(msgs[:6], append([]Message{dup}, msgs[6:]...)...)
	s.Add(msgs...)
	r := build(t, s)
	first, second := r.Messages[3].Content, r.Messages[6].Content
	if !strings.HasPrefix(second, "<il:seen ") {
		t.Fatalf("repeat not marked seen: %.100q", second)
	}
	if vault.ParseRefs(first)[0].ID != vault.ParseRefs(second)[0].ID {
		t.Fatal("seen ref does not name the first copy's id")
	}
}

func TestIngestionCompactsHugeToolOutput(t *testing.T) {
	s, v := newState(t, Defaults())
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		if i == 1500 {
			b.WriteString("E   AssertionError: expected 3, got 4\n")
			continue
		}
		fmt.Fprintf(&b, "compiling unit %d of 3000\n", i)
	}
	out := b.String()
	s.Add(Message{Role: "user", Content: "build it"}, Message{Role: "tool", Content: out})
	r := build(t, s)
	got := r.Messages[1].Content
	if len(got) > len(out)/5 {
		t.Fatalf("ingestion kept %d of %d bytes", len(got), len(out))
	}
	for _, want := range []string{"compiling unit 0 of", "compiling unit 2999 of", "AssertionError: expected 3, got 4", "3000 lines"} {
		if !strings.Contains(got, want) {
			t.Fatalf("compacted output lacks %q", want)
		}
	}
	refs := vault.ParseRefs(got)
	if len(refs) != 1 {
		t.Fatalf("compacted output has %d refs", len(refs))
	}
	if data, err := v.Get(refs[0].ID); err != nil || string(data) != out {
		t.Fatal("ingestion ref does not resolve to the exact output")
	}
	if r.Event.Ingested != 1 || r.Event.SentTokens >= r.Event.NaiveTokens {
		t.Fatalf("event %+v", r.Event)
	}
}

func TestAutoRestoreNeedsIntentAndOverlap(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 4000
	failing := "$ pytest tests/test_auth.py\n" + strings.Repeat("tests/test_auth.py::test_ok PASSED\n", 20) +
		"FAILED tests/test_auth.py::test_token_refresh - AssertionError: token expired\n" +
		"auth/token.py:42: in refresh_token\n    raise AssertionError('token expired')\n1 failed, 20 passed in 0.3s\n"
	base := []Message{{Role: "system", Content: "You are a coding agent."}, {Role: "user", Content: "run the auth tests"},
		{Role: "assistant", Content: "```\npytest tests/test_auth.py\n```"}, {Role: "tool", Content: failing}}
	for i := 0; i < 6; i++ {
		base = append(base, Message{Role: "assistant", Content: "next"}, Message{Role: "tool", Content: toolOutput(i, 1800)})
	}
	cases := []struct {
		turn string
		want bool
	}{
		{"why does test_token_refresh fail in test_auth.py with the AssertionError?", true},
		{"thanks, now write the changelog for test_token_refresh in test_auth.py", false},
		{"show me the error in the kubernetes manifests", false},
	}
	for _, tc := range cases {
		s, _ := newState(t, p)
		s.Add(base...)
		build(t, s)
		s.Add(Message{Role: "user", Content: tc.turn})
		s.Add(conversation(4)[2:]...)
		r := build(t, s)
		restored := r.Event.AutoRestores == 1
		if restored != tc.want {
			t.Fatalf("%q: restored=%v, want %v", tc.turn, restored, tc.want)
		}
		if restored {
			c := r.Messages[3].Content
			if !strings.Contains(c, `ar="true"`) || !strings.Contains(c, "<ctx_excerpt") || !strings.Contains(c, "AssertionError: token expired") {
				t.Fatalf("restored message: %q", c)
			}
		}
	}
}

func TestSensitiveBlocksAreRedactedAndNeverRestored(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 2500
	p.Fold = false // the block's own ref is under test; TestFoldWithholdsSecrets covers runs
	secret := "AKIAIOSFODNN7EXAMPLE"
	env := "$ cat .env\nAWS_ACCESS_KEY_ID=" + secret + "\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n" +
		"DATABASE_URL=postgres://app:hunter2hunter2@db/app\n" + strings.Repeat("DEBUG=1\n", 60) + "error: aws credentials failed\n"
	s, v := newState(t, p)
	s.Add(Message{Role: "system", Content: "sys"}, Message{Role: "user", Content: "check the aws env"},
		Message{Role: "assistant", Content: "```\ncat .env\n```"}, Message{Role: "tool", Content: env})
	for i := 0; i < 6; i++ {
		s.Add(Message{Role: "assistant", Content: "next"}, Message{Role: "tool", Content: toolOutput(i, 1500)})
	}
	s.Add(Message{Role: "user", Content: "show me the exact aws credentials error from .env, why did aws fail?"})
	r := build(t, s)
	ref := r.Messages[3].Content
	if !strings.HasPrefix(ref, "<ctx ") || !strings.Contains(ref, `sens="true"`) {
		t.Fatalf("sensitive block not externalized with sens: %q", ref)
	}
	for _, m := range r.Messages {
		if strings.Contains(m.Content, secret) || strings.Contains(m.Content, "hunter2hunter2") {
			t.Fatalf("secret reached the prompt: %q", m.Content)
		}
	}
	if r.Event.AutoRestores != 0 {
		t.Fatal("a sensitive block was auto-restored")
	}
	meta, _ := v.Meta(vault.ParseRefs(ref)[0].ID)
	if !meta.Sensitive || strings.Contains(meta.Summary, secret) {
		t.Fatalf("vault meta: %+v", meta)
	}
}

func TestVerifiedModeReadsBack(t *testing.T) {
	p, _ := Preset("verified")
	p.TriggerTokens = 1500
	s, _ := newState(t, p)
	s.Add(conversation(16)...)
	if r := build(t, s); r.Event.Refs == 0 {
		t.Fatal("verified mode externalized nothing")
	}
}

func TestPresetsAndValidate(t *testing.T) {
	d := Defaults()
	if d.Mode != "ultra" || d.TriggerTokens != 24000 || d.Recent != 8 || d.MinBlockChars != 420 {
		t.Fatalf("defaults %+v", d)
	}
	for _, m := range Modes {
		if _, err := Preset(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Preset("reckless"); err == nil {
		t.Fatal("unknown mode accepted")
	}
	bad := d
	bad.MinBlockChars = 0
	if bad.Validate() == nil {
		t.Fatal("min block 0 accepted")
	}
}

// TestLosslessEncodingOnceActive checks that, once the diet is active, a
// new repetitive tool output goes as <il:v1> and decodes to the exact text.
func TestLosslessEncodingOnceActive(t *testing.T) {
	s, v := newState(t, smallParams())
	s.Add(conversation(10)...)
	if r := build(t, s); r.Event.Refs == 0 {
		t.Fatal("diet did not activate")
	}
	var b strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "  File \"/home/runner/work/app/app/.venv/lib/python3.11/site-packages/django/core/handlers/base.py\", line %d, in get_response\n", 100+i%3)
		b.WriteString("    response = self._middleware_chain(request)\n")
	}
	out := b.String()
	s.Add(Message{Role: "assistant", Content: "```\npython manage.py test\n```"}, Message{Role: "tool", Content: out})
	r := build(t, s)
	got := r.Messages[len(r.Messages)-1].Content
	refs := vault.ParseRefs(got)
	if len(refs) != 1 || refs[0].Tag != vault.TagIL || len(got)*5 > len(out)*4 {
		t.Fatalf("want a smaller <il:v1> message, got %d of %d bytes: %.120q", len(got), len(out), got)
	}
	dec, err := vault.DecodeIL([]byte(refs[0].Body))
	if err != nil || string(dec) != out {
		t.Fatalf("il:v1 body does not decode to the original: %v", err)
	}
	if data, err := v.Get(refs[0].ID); err != nil || string(data) != out {
		t.Fatal("il:v1 id does not resolve to the original")
	}
}

// TestCredentialsFileBlockIsWithheld: a .pgpass line holds a password no
// rule recognises; read from a credentials file, its block is sensitive
// and its summary quotes none of it.
func TestCredentialsFileBlockIsWithheld(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 2500
	p.Fold = false // the block's own ref is under test; TestFoldWithholdsSecrets covers runs
	pgpass := strings.Repeat("db.internal:5432:app:app:Wq9vTz2LkP4x\n", 40)
	s, v := newState(t, p)
	s.Add(Message{Role: "system", Content: "sys"}, Message{Role: "user", Content: "check the db login"},
		Message{Role: "assistant", Content: "reading it"}, Message{Role: "tool", Content: pgpass, Sensitive: true})
	for i := 0; i < 6; i++ {
		s.Add(Message{Role: "assistant", Content: "next"}, Message{Role: "tool", Content: toolOutput(i, 1500)})
	}
	s.Add(Message{Role: "user", Content: "show me the exact db login lines"})
	r := build(t, s)
	ref := r.Messages[3].Content
	if !strings.HasPrefix(ref, "<ctx ") || !strings.Contains(ref, `sens="true"`) || strings.Contains(ref, "Wq9vTz2LkP4x") {
		t.Fatalf("credentials block not withheld: %q", ref)
	}
	meta, _ := v.Meta(vault.ParseRefs(ref)[0].ID)
	if !meta.Sensitive || strings.Contains(meta.Summary, "Wq9vTz2LkP4x") || len(meta.Topics) > 0 {
		t.Fatalf("vault meta: %+v", meta)
	}
}
