package diet

import (
	"strings"
	"testing"
)

// TestAutoRestoreNeedsASpecificOverlap asks, over a session whose old
// blocks are a ctx_search answer about the parser and the build, a failing
// pytest run, a failed go build and a long file window, turns with
// retrieval intent: those that share only generic words (build, token,
// parser, test, memory, error) with a block restore nothing; those that
// name a file, a symbol or an error restore that block.
func TestAutoRestoreNeedsASpecificOverlap(t *testing.T) {
	p := smallParams()
	p.TriggerTokens = 6000
	search := "<ctx_results query=\"parser build\" n=2>\n" +
		`<ctx id="ctx:0123456789ab" n=5000 k="tool" t="mid1,vault,parser,build" s="parser build output; token counts; memory"/>` + "\n" +
		strings.Repeat(`<ctx id="ctx:ba9876543210" n=3000 k="tool" t="parser,build,token,memory" s="build parser token memory test error"/>`+"\n", 6) +
		"</ctx_results>"
	pytest := "$ pytest tests/test_lexer.py\n" + strings.Repeat("tests/test_lexer.py::test_ok PASSED\n", 30) +
		"FAILED tests/test_lexer.py::test_parse_header - ValueError: bad header token\n" +
		"lexer/header.py:88: in parse_header\n    raise ValueError('bad header token')\n1 failed, 30 passed in 0.4s\n"
	gobuild := "$ go build ./...\n" + strings.Repeat("# building module parser and the memory token cache\n", 25) +
		"internal/parse/scan.go:17:2: undefined: nextRune\nerror: build failed\n"
	base := []Message{{Role: "system", Content: "You are a coding agent."}, {Role: "user", Content: "look into the parser"},
		{Role: "assistant", Content: ".ctx_search query=parser build"}, {Role: "tool", Kind: KindPageIn, Content: search},
		{Role: "assistant", Content: "```\npytest tests/test_lexer.py\n```"}, {Role: "tool", Kind: "tool:shell", Content: pytest},
		{Role: "assistant", Content: "```\ngo build ./...\n```"}, {Role: "tool", Kind: "tool:shell", Content: gobuild}}
	for i := range 6 {
		base = append(base, Message{Role: "assistant", Content: "next"}, Message{Role: "tool", Content: toolOutput(i, 1800)})
	}
	generic := []string{
		"why does the token parser build break",
		"show me why the build fails",
		"the tests are failing, fix the parser error",
		"what went wrong with the memory and the token cache? show the error",
		"debug the build of the parser module",
	}
	specific := []struct{ turn, block string }{
		{"why does test_parse_header fail?", "ValueError: bad header token"},
		{"show me the ValueError in header.py", "ValueError: bad header token"},
		{"fix the build: undefined nextRune in scan.go", "undefined: nextRune"},
	}
	restore := func(turn string) Result {
		s, _ := newState(t, p)
		s.Add(base...)
		build(t, s)
		s.Add(Message{Role: "user", Content: turn})
		s.Add(conversation(3)[2:]...)
		return build(t, s)
	}
	false_ := 0
	for _, turn := range generic {
		if r := restore(turn); r.Event.AutoRestores != 0 {
			false_++
			t.Errorf("%q restored %v", turn, r.Restored)
		}
	}
	for _, c := range specific {
		r := restore(c.turn)
		found := false
		for _, m := range r.Messages {
			found = found || strings.Contains(m.Content, "<ctx_excerpt") && strings.Contains(m.Content, c.block)
		}
		if r.Event.AutoRestores != 1 || !found {
			t.Errorf("%q: restored %v, want the block with %q", c.turn, r.Restored, c.block)
		}
	}
	t.Logf("false restores on generic words: %d of %d turns", false_, len(generic))
}
