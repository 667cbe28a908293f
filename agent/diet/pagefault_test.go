package diet

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const pfHexID = "ctx:5f2a9c1e7b3d"

func TestParseFaultsAccepted(t *testing.T) {
	get := func(id, reason string) Fault { return Fault{Op: "get", ID: id, Reason: reason, Line: 1} }
	search := func(q, reason string) Fault { return Fault{Op: "search", Query: q, Reason: reason, Line: 1} }
	cases := []struct {
		in   string
		want Fault
	}{
		{".ctx_get id=ctx:5f2a9c1e7b3d reason=need the full traceback", get(pfHexID, "need the full traceback")},
		{".ctx_get id=5f2a9c1e7b3d", get(pfHexID, "")},
		{`.ctx_get id="ctx:5f2a9c1e7b3d"`, get(pfHexID, "")},
		{`.ctx_get id="ctx:5f2a9c1e7b3d", reason="why not"`, get(pfHexID, "why not")},
		{".ctx_get id=CTX:5F2A9C1E7B3D.", get(pfHexID, "")},
		{".ctx_get id=ctx:5f2a9c1e7b3d, reason='quoted'", get(pfHexID, "quoted")},
		{"    .ctx_get\tid=ctx:5f2a9c1e7b3d   reason=  spaced out  \r", get(pfHexID, "spaced out")},
		{".ctx_get reason=x id=y", Fault{}}, // reason= runs to the end: an error, checked below
		{".ctx_get id=ctx:5f2a9c1e reason=a \"half quoted", get("ctx:5f2a9c1e", "a \"half quoted")},
		{".ctx_get id=" + strings.Repeat("A", 64), get("ctx:"+strings.Repeat("a", 64), "")},
		{". err need_ref 5f2a9c1e7b3d", get(pfHexID, "")},
		{". err need_ref ctx:5f2a9c1e7b3d need the diff", get(pfHexID, "need the diff")},
		{".  err   need_ref ctx:5F2A9C1E7B3D: full log", get(pfHexID, "full log")},
		{".err need_ref 5f2a9c1e7b3d - reason=\"why\"", get(pfHexID, "why")},
		{".ctx_search query=auth token failure reason=find the failing test", search("auth token failure", "find the failing test")},
		{".ctx_search query=auth token failure", search("auth token failure", "")},
		{`.ctx_search query="quoted with reason= inside" reason=because`, search("quoted with reason= inside", "because")},
		{`.ctx_search query="only quoted"`, search("only quoted", "")},
		{".ctx_search query=a=b treason=x", search("a=b treason=x", "")},
		{".ctx_search   query=  padded  \treason=r", search("padded", "r")},
	}
	for _, c := range cases {
		got, errs := ParseFaults(c.in)
		if c.want.Op == "" {
			if len(got) != 0 || len(errs) != 1 {
				t.Errorf("ParseFaults(%q) = %+v, %v; want one error", c.in, got, errs)
			}
			continue
		}
		if len(errs) != 0 || len(got) != 1 || !reflect.DeepEqual(got[0], c.want) {
			t.Errorf("ParseFaults(%q) = %+v, %v; want %+v", c.in, got, errs, c.want)
		}
	}
}

func TestParseFaultsMalformed(t *testing.T) {
	cases := []struct{ in, want string }{
		{".ctx_get", "line 1: .ctx_get: missing id="},
		{".ctx_get reason=just because", "line 1: .ctx_get: missing id="},
		{".ctx_get foo=bar", `line 1: .ctx_get: unknown key "foo" (want id= or reason=)`},
		{".ctx_get id=", "line 1: .ctx_get: empty id"},
		{".ctx_get id=ctx:", "line 1: .ctx_get: empty id"},
		{".ctx_get id=ctx:xyz12345", `line 1: .ctx_get: id "ctx:xyz12345" is not hex`},
		{".ctx_get id=ctx:5f2a9c1", `line 1: .ctx_get: id "ctx:5f2a9c1" has 7 hex digits (want 8 to 64)`},
		{".ctx_get id=" + strings.Repeat("a", 65), "has 65 hex digits"},
		{".ctx_get id=ctx:5f2a9c1e id=ctx:5f2a9c1f", "duplicate id="},
		{".ctx_get ctx:5f2a9c1e7b3d", `unexpected "ctx:5f2a9c1e7b3d"`},
		{".ctx_get id=ctx:5f2a9c1e7b3d please", `unexpected "please"`},
		{".ctx_search", "line 1: .ctx_search: missing query="},
		{".ctx_search reason=x", "missing query="},
		{".ctx_search query=", "line 1: .ctx_search: empty query="},
		{".ctx_search query=   reason=x", "empty query="},
		{`.ctx_search query=""`, "empty query="},
		{`.ctx_search query="open`, "unterminated quote"},
		{`.ctx_search query="a" b`, `unexpected "b" after quoted query`},
		{".ctx_search q=x", `unknown key "q"`},
		{".ctx_search auth failure", `unexpected "auth"`},
		{". err need_ref", "line 1: . err need_ref: missing id"},
		{". err need_ref zz", `id "zz" is not hex`},
		{". err need_ref ctx:abc", "has 3 hex digits"},
	}
	for _, c := range cases {
		got, errs := ParseFaults(c.in)
		if len(got) != 0 || len(errs) != 1 {
			t.Errorf("ParseFaults(%q) = %+v, %v; want exactly one error", c.in, got, errs)
			continue
		}
		var fe *FaultError
		if !errors.Is(errs[0], ErrBadFault) || !errors.As(errs[0], &fe) || fe.Line != 1 {
			t.Errorf("ParseFaults(%q) error %v does not wrap ErrBadFault with Line 1", c.in, errs[0])
		}
		if !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("ParseFaults(%q) error %q, want it to contain %q", c.in, errs[0], c.want)
		}
	}
}

func TestParseFaultsIgnored(t *testing.T) {
	for _, in := range []string{
		"", "\n\n", "hello", ".ctx_getter id=ctx:5f2a9c1e7b3d", ".ctx_get_all", ".ctx_get:id=ctx:5f2a9c1e7b3d",
		".ctx_searching query=x", ". err need_refs 5f2a9c1e7b3d", ". err other 5f2a9c1e7b3d", ".error need_ref x",
		"please run .ctx_get id=ctx:5f2a9c1e7b3d", "`.ctx_get id=ctx:5f2a9c1e7b3d`", "- .ctx_get id=x", "```",
	} {
		if got, errs := ParseFaults(in); len(got) != 0 || len(errs) != 0 {
			t.Errorf("ParseFaults(%q) = %+v, %v; want nothing", in, got, errs)
		}
	}
}

func TestParseFaultsDocument(t *testing.T) {
	text := strings.Join([]string{
		"I need more context.",
		"```",
		"  .ctx_get id=ctx:5f2a9c1e7b3d reason=full traceback",
		"```",
		".ctx_get id=nothex",
		".ctx_search query=auth token failure reason=find the failing test",
		"\x00\xff.ctx_get id=ctx:5f2a9c1e7b3d",
		". err need_ref 5F2A9C1E7B3D",
		".ctx_get id=ctx:5f2a9c1e7b3d reason=full traceback",
	}, "\r\n")
	got, errs := ParseFaults(text)
	want := []Fault{
		{Op: "get", ID: pfHexID, Reason: "full traceback", Line: 3},
		{Op: "search", Query: "auth token failure", Reason: "find the failing test", Line: 6},
		{Op: "get", ID: pfHexID, Line: 8},
		{Op: "get", ID: pfHexID, Reason: "full traceback", Line: 9},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("faults = %+v\nwant %+v", got, want)
	}
	if len(errs) != 1 || errs[0].Error() != `line 5: .ctx_get: id "nothex" is not hex` {
		t.Errorf("errs = %v", errs)
	}
}

func TestParseFaultsHugeLines(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	inputs := []string{
		".ctx_get id=" + big, ".ctx_get id=ctx:5f2a9c1e7b3d reason=" + big, ".ctx_search query=" + big,
		".ctx_get " + strings.Repeat("id=ctx:5f2a9c1e7b3d ", 1<<15), ". err need_ref " + big,
		".ctx_search query=" + strings.Repeat("reason", 1<<17), strings.Repeat("\x00\xc2", 1<<19),
		".ctx_get " + strings.Repeat(" ", 1<<20) + "id=5f2a9c1e7b3d",
	}
	for _, in := range inputs {
		got, errs := ParseFaults(in)
		pfCheckFaults(t, in, got, errs)
		for _, err := range errs {
			if len(err.Error()) > 300 {
				t.Errorf("error message is %d bytes long", len(err.Error()))
			}
		}
	}
}

// pfCheckFaults asserts the invariants every ParseFaults result must hold.
func pfCheckFaults(t *testing.T, text string, got []Fault, errs []error) {
	t.Helper()
	lines := strings.Count(text, "\n") + 1
	for _, f := range got {
		if f.Line < 1 || f.Line > lines {
			t.Fatalf("fault %+v: line out of range 1..%d", f, lines)
		}
		switch f.Op {
		case "get":
			if norm, msg := pfNormalizeID(f.ID); msg != "" || norm != f.ID {
				t.Fatalf("fault %+v: bad id", f)
			}
		case "search":
			if strings.TrimSpace(f.Query) == "" {
				t.Fatalf("fault %+v: empty query", f)
			}
		default:
			t.Fatalf("fault %+v: bad op", f)
		}
	}
	for _, err := range errs {
		if !errors.Is(err, ErrBadFault) {
			t.Fatalf("error %v does not wrap ErrBadFault", err)
		}
	}
}

func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{
		".ctx_get id=ctx:5f2a9c1e7b3d reason=need the full traceback",
		`.ctx_get id="CTX:5F2A9C1E7B3D", reason="x"`,
		". err need_ref 5f2a9c1e7b3d more text",
		".ctx_search query=auth token failure reason=find the failing test",
		`.ctx_search query="quoted with reason= inside" reason=r`,
		"```\n  .ctx_get id=ctx:deadbeef\n```\n.ctx_get foo=bar\n.ctx_getter\n",
		".ctx_search query=\"open\n. err need_ref\n\x00\xff\xc2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, errs := ParseFaults(text)
		pfCheckFaults(t, text, got, errs)
	})
}
