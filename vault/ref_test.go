package vault

import (
	"reflect"
	"strings"
	"testing"
)

func TestRefFormatAndParse(t *testing.T) {
	full := Ref{Tag: TagCtx, ID: "ctx:5f2a9c1e7b3d", Chars: 8507, Kind: "tool:shell", Tokens: 2110,
		Confidence: 0.62, Priority: "high", Topics: []string{"pytest", "error", "auth"},
		Summary: "lines=120; files=[auth/token.py]; err=AssertionError: x"}
	want := `<ctx k="tool:shell" id="ctx:5f2a9c1e7b3d" n=8507 tok=2110 c="0.62" p="high" t="pytest,error,auth" s="lines=120; files=[auth/token.py]; err=AssertionError: x"/>`
	if got := full.String(); got != want {
		t.Fatalf("format:\n got %s\nwant %s", got, want)
	}
	seen := Ref{Tag: TagSeen, ID: "ctx:5f2a9c1e7b3d", Chars: 8507}
	if got := seen.String(); got != `<il:seen id="ctx:5f2a9c1e7b3d" n=8507/>` {
		t.Fatalf("seen: %s", got)
	}
	il := Ref{Tag: TagIL, ID: "ctx:00112233aabb", Chars: 10, Body: "a\n«+3»"}
	text := "before " + full.String() + " mid " + seen.String() + "\n" + il.String() + " after <ctx broken"
	got := ParseRefs(text)
	if len(got) != 3 {
		t.Fatalf("parsed %d refs from %q", len(got), text)
	}
	for i, w := range []Ref{full, seen, il} {
		if !reflect.DeepEqual(got[i], w) {
			t.Errorf("ref %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
}

func TestRefAttributeEscaping(t *testing.T) {
	r := Ref{ID: "ctx:5f2a9c1e7b3d", Chars: 3, Summary: "say \"hi\"\nthen />  quit", Topics: []string{"a,b", "c\"d"}}
	s := r.String()
	if strings.Count(s, `"`)%2 != 0 || strings.Contains(s, "\n") {
		t.Fatalf("unsafe attribute: %s", s)
	}
	got := ParseRefs(s)
	if len(got) != 1 || got[0].Summary != "say 'hi' then />  quit" || strings.Join(got[0].Topics, "|") != "a b|c'd" {
		t.Fatalf("escaped round trip: %+v", got)
	}
}

// TestParseRefsEmptyInlineBody covers an inline block with nothing between
// its lines: both the formatted form and the shorter "<il…>\n</il>" parse to
// an empty body (the short one once sliced out of range).
func TestParseRefsEmptyInlineBody(t *testing.T) {
	formatted := Ref{Tag: TagIL, ID: "ctx:5f2a9c1e7b3d", Chars: 0}.String()
	for _, s := range []string{formatted, `<il:v1 id="ctx:5f2a9c1e7b3d" n=0>` + "\n</il>"} {
		got := ParseRefs(s)
		if len(got) != 1 || got[0].Body != "" || got[0].ID != "ctx:5f2a9c1e7b3d" {
			t.Errorf("ParseRefs(%q) = %+v, want one ref with an empty body", s, got)
		}
	}
}

func TestParseRefsRejectsMalformed(t *testing.T) {
	for _, s := range []string{
		`<ctx id="ctx:zz" n=1/>`,
		`<ctx n=1/>`,
		`<ctx id="ctx:5f2a9c1e7b3d" n=abc/>`,
		`<ctx id="ctx:5f2a9c1e7b3d" n=1`,
		`<il:v1 id="ctx:5f2a9c1e7b3d" n=1>no newline</il>`,
		`<il:v1 id="ctx:5f2a9c1e7b3d" n=1>` + "\nunterminated",
		`<ctx id="ctx:5f2a9c1e7b3d s="x"/>`,
	} {
		if got := ParseRefs(s); len(got) != 0 {
			t.Errorf("ParseRefs(%q) = %+v, want none", s, got)
		}
	}
}

// FuzzParseRefs checks that parsing never panics, that what it returns is
// well formed, and that a formatted ref parses back to itself.
func FuzzParseRefs(f *testing.F) {
	f.Add(`<ctx k="tool" id="ctx:5f2a9c1e7b3d" n=8507 tok=2110 c="0.62" p="high" t="a,b" s="x"/>`, "summary", "kind", 10)
	f.Add(`<il:seen id="ctx:5f2a9c1e7b3d" n=1/><il:v1 id="ctx:5f2a9c1e7b3d" n=2>`+"\nab\n</il>", "", "", 0)
	f.Add("<ctx <ctx id=\"ctx:", "\"\n\x00", "k\"", -1)
	f.Add(`<ctx id="ctx:5f2a9c1e7b3d" n=1 s="/>"/>`, "a />b", "", 1<<30)
	f.Fuzz(func(t *testing.T, text, summary, kind string, n int) {
		for _, r := range ParseRefs(text) {
			if _, err := NormalizeID(r.ID); err != nil || r.Tag == "" {
				t.Fatalf("malformed ref accepted: %+v", r)
			}
		}
		r := Ref{Tag: TagCtx, ID: "ctx:5f2a9c1e7b3d", Chars: n, Kind: kind, Summary: summary}
		got := ParseRefs(r.String())
		if len(got) != 1 {
			t.Fatalf("formatted ref %q parsed as %d refs", r.String(), len(got))
		}
		if got[0].Summary != cleanAttr(summary) || got[0].Kind != cleanAttr(kind) || got[0].Chars != n {
			t.Fatalf("round trip of %q: %+v", r.String(), got[0])
		}
	})
}
