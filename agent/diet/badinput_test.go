package diet

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kwsdev/kws/vault"
)

// TestHostileOutputLosesNothing sends binary, invalid UTF-8 and escape
// sequences through the diet: the refs resolve to the exact bytes and no
// summary carries an escape sequence, control byte or invalid UTF-8.
func TestHostileOutputLosesNothing(t *testing.T) {
	p := smallParams()
	p.Fold = false // each block's own ref is under test
	s, v := newState(t, p)
	hostile := []string{
		"\x1b[31mFAILED\x1b[0m test_x.py\x1b]0;pwned\x07 \x1b[2J\x00\x01\xff\xfe " + strings.Repeat("\x89PNG\r\n\x1a\n\x00\x00", 80),
		string(bytes.Repeat([]byte{0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, '\n'}, 120)),
		"[red]not a colour[-] [::b]tags[::-] " + strings.Repeat("[yellow]x[white] ", 60),
	}
	s.Add(Message{Role: "system", Content: "sys"}, Message{Role: "user", Content: "go"})
	for _, h := range hostile {
		s.Add(Message{Role: "assistant", Content: "```\ncat blob\n```"}, Message{Role: "tool", Content: h})
	}
	s.Add(conversation(10)[2:]...)
	r := build(t, s)
	for i, h := range hostile {
		m := r.Messages[3+2*i].Content
		refs := vault.ParseRefs(m)
		if len(refs) == 0 {
			t.Fatalf("hostile block %d not externalized: %.80q", i, m)
		}
		got, err := v.Get(refs[0].ID)
		if err != nil || string(got) != h {
			t.Fatalf("hostile block %d not exact in the vault: %v", i, err)
		}
		if !utf8.ValidString(refs[0].Summary) || strings.ContainsAny(refs[0].Summary, "\x1b\x00\x07\r\n") {
			t.Fatalf("unsafe summary %q", refs[0].Summary)
		}
	}
}

// TestHundredMegabyteToolOutput ingests a 100 MB tool output: it is vaulted
// exactly, the history keeps a small compact view, and counting falls back
// to the labelled estimate instead of stalling.
func TestHundredMegabyteToolOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB input")
	}
	var b bytes.Buffer
	b.Grow(100 << 20)
	line := []byte("building target 0123456789 of the huge monorepo, all fine here\n")
	for b.Len() < 100<<20 {
		b.Write(line)
	}
	b.WriteString("error: linker failed with exit code 1\n")
	huge := b.String()
	s, v := newState(t, Defaults())
	s.Add(Message{Role: "user", Content: "build"}, Message{Role: "tool", Content: huge})
	r := build(t, s)
	kept := r.Messages[1].Content
	if len(kept) > 64<<10 || !strings.Contains(kept, "linker failed") {
		t.Fatalf("kept %d bytes; error line kept: %v", len(kept), strings.Contains(kept, "linker failed"))
	}
	ref := vault.ParseRefs(kept)[0]
	m, err := v.Meta(ref.ID)
	if err != nil || m.Chars != len(huge) || !m.TokensEstimated || !m.Sensitive {
		t.Fatalf("meta %+v err %v (a block too big to scan whole is marked sensitive)", m, err)
	}
	got, err := v.Get(ref.ID)
	if err != nil || len(got) != len(huge) || string(got[len(got)-40:]) != huge[len(huge)-40:] {
		t.Fatalf("100 MB block not exact: %d bytes, %v", len(got), err)
	}
}
