package pty

import (
	"fmt"
	"strings"
	"testing"
)

// testHistory returns the history of a 20×4 emulator with 3 scrollback
// lines after writing text.
func testHistory(t *testing.T, text string) *History {
	t.Helper()
	e := newTestEmu(t, 20, 4, 3)
	_, _ = e.Write([]byte(text))
	return newHistory(e)
}

// historyText is 8 lines on a 4-row screen: lines one…four go to the
// scrollback (capped at 3), five…eight stay on screen with the cursor on
// an empty fifth row scrolled off.
const historyText = "one alpha\r\ntwo beta\r\nthree alpha\r\nfour\r\nfive gamma alpha\r\n界 wide x\r\nseven\r\neight alpha"

func TestHistoryLayout(t *testing.T) {
	h := testHistory(t, historyText)
	if h.Len() != 7 || h.ScrollbackLines() != 3 {
		t.Fatalf("Len %d, ScrollbackLines %d", h.Len(), h.ScrollbackLines())
	}
	want := []string{"two beta", "three alpha", "four", "five gamma alpha", "界 wide x", "seven", "eight alpha"}
	for i, w := range want {
		if got := h.LineText(i); got != w {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
	if h.Line(-1) != nil || h.Line(7) != nil {
		t.Error("out-of-range lines are not nil")
	}
}

func TestHistorySelect(t *testing.T) {
	h := testHistory(t, historyText)
	cases := []struct {
		name string
		got  func() string
		want string
	}{
		{"lines", func() string { return h.SelectLines(1, 3) }, "three alpha\nfour\nfive gamma alpha"},
		{"lines reversed", func() string { return h.SelectLines(3, 1) }, "three alpha\nfour\nfive gamma alpha"},
		{"lines clamped", func() string { return h.SelectLines(5, 99) }, "seven\neight alpha"},
		{"rect", func() string { return h.SelectRect(Pos{1, 0}, Pos{3, 3}) }, "thre\nfour\nfive"},
		{"rect reversed corners", func() string { return h.SelectRect(Pos{3, 3}, Pos{1, 0}) }, "thre\nfour\nfive"},
		{"rect past line ends", func() string { return h.SelectRect(Pos{0, 4}, Pos{2, 30}) }, "beta\ne alpha\n"},
		{"rect from inside wide char", func() string { return h.SelectRect(Pos{4, 1}, Pos{4, 3}) }, "界 w"},
		{"range one line", func() string { return h.SelectRange(Pos{3, 5}, Pos{3, 9}) }, "gamma"},
		{"range across lines", func() string { return h.SelectRange(Pos{1, 6}, Pos{3, 3}) }, "alpha\nfour\nfive"},
		{"range reversed", func() string { return h.SelectRange(Pos{3, 3}, Pos{1, 6}) }, "alpha\nfour\nfive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.got(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHistorySearch(t *testing.T) {
	h := testHistory(t, historyText)
	cases := []struct {
		name     string
		query    string
		from     Pos
		backward bool
		want     Match
		found    bool
	}{
		{"first from top", "alpha", Pos{0, -1}, false, Match{Pos{1, 6}, Pos{1, 11}}, true},
		{"next on same line", "alpha", Pos{3, 5}, false, Match{Pos{3, 11}, Pos{3, 16}}, true},
		{"next after line", "alpha", Pos{3, 11}, false, Match{Pos{6, 6}, Pos{6, 11}}, true},
		{"none after last", "alpha", Pos{6, 6}, false, Match{}, false},
		{"last from bottom", "alpha", Pos{h.Len(), 0}, true, Match{Pos{6, 6}, Pos{6, 11}}, true},
		{"previous on same line", "alpha", Pos{3, 11}, true, Match{Pos{1, 6}, Pos{1, 11}}, true},
		{"none before first", "alpha", Pos{1, 6}, true, Match{}, false},
		{"after wide char", "wide", Pos{0, -1}, false, Match{Pos{4, 3}, Pos{4, 7}}, true},
		{"wide char itself", "界", Pos{0, -1}, false, Match{Pos{4, 0}, Pos{4, 2}}, true},
		{"missing", "delta", Pos{0, -1}, false, Match{}, false},
		{"empty query", "", Pos{0, -1}, false, Match{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, found := h.Search(tc.query, tc.from, tc.backward)
			if found != tc.found || got != tc.want {
				t.Errorf("Search = %+v, %v; want %+v, %v", got, found, tc.want, tc.found)
			}
		})
	}
	all := h.SearchAll("alpha")
	if len(all) != 3 {
		t.Fatalf("SearchAll found %d, want 3: %+v", len(all), all)
	}
	if all[0].Start != (Pos{1, 6}) || all[2].Start != (Pos{6, 6}) {
		t.Errorf("SearchAll = %+v", all)
	}
}

func TestHistoryThroughShell(t *testing.T) {
	needBinary(t, "seq")
	s := startShell(t, Options{Rows: 10})
	run(t, s, "seq 1 50 | sed 's/^/n/'")
	waitFor(t, "the output", func() bool { return strings.HasSuffix(s.Text(), "n50\n$") })
	h := s.History()
	m, ok := h.Search("n7", Pos{0, -1}, false)
	if !ok {
		t.Fatal("n7 not found")
	}
	if got := h.SelectRange(m.Start, Pos{m.Start.Line + 2, 2}); got != "n7\nn8\nn9" {
		t.Errorf("selection %q", got)
	}
	last, ok := h.Search("n4", Pos{h.Len(), 0}, true)
	if !ok || h.LineText(last.Start.Line) != "n49" {
		t.Errorf("backward search found %+v on %q", last, h.LineText(last.Start.Line))
	}
	if got := len(h.SearchAll("n")); got < 50 {
		t.Errorf("SearchAll(n) = %d matches, want ≥ 50", got)
	}
	run(t, s, "echo more output")
	waitLine(t, s, "more output")
	if got := h.LineText(m.Start.Line); got != fmt.Sprintf("n%d", 7) {
		t.Errorf("history changed under new output: %q", got)
	}
}

// promptMark is the OSC 133 mark of a prompt's start.
const promptMark = "\x1b]133;A\x07"

func TestHistoryPrompts(t *testing.T) {
	e := emuKindNamed("fast").start(t, 20, 4, 3)
	_, _ = e.Write([]byte(promptMark + "$ one\r\nout1\r\n" + promptMark + "$ two\r\nout2\r\nout2b\r\n" +
		promptMark + "$ three\r\n\x1b]133;C\x07out3\r\n\x1b]133;D;0\x07\x1b]133;A;cl=m\x1b\\$ "))
	h := newHistory(e.Emulator)
	want := []string{"out1", "$ two", "out2", "out2b", "$ three", "out3", "$"}
	if h.Len() != len(want) {
		t.Fatalf("Len %d, want %d", h.Len(), len(want))
	}
	for i, w := range want {
		if got := h.LineText(i); got != w {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
		if got := h.IsPrompt(i); got != strings.HasPrefix(w, "$") {
			t.Errorf("IsPrompt(%d) = %v on %q", i, got, w)
		}
	}
	cases := []struct {
		name string
		got  func() (int, bool)
		line int
		ok   bool
	}{
		{"previous from the last prompt", func() (int, bool) { return h.PrevPrompt(6) }, 4, true},
		{"previous from output", func() (int, bool) { return h.PrevPrompt(3) }, 1, true},
		{"none before the first", func() (int, bool) { return h.PrevPrompt(1) }, 0, false},
		{"previous from past the end", func() (int, bool) { return h.PrevPrompt(99) }, 6, true},
		{"next from the top", func() (int, bool) { return h.NextPrompt(0) }, 1, true},
		{"next from a prompt", func() (int, bool) { return h.NextPrompt(4) }, 6, true},
		{"none after the last", func() (int, bool) { return h.NextPrompt(6) }, 0, false},
		{"next from before the start", func() (int, bool) { return h.NextPrompt(-5) }, 1, true},
	}
	for _, tc := range cases {
		if line, ok := tc.got(); line != tc.line || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, line, ok, tc.line, tc.ok)
		}
	}
}

// TestPromptMarksFollowTheirLines checks that prompt marks stay on their
// lines as they scroll into the scrollback ring, which wraps many times
// over, through a clear screen and a redrawn prompt line.
func TestPromptMarksFollowTheirLines(t *testing.T) {
	e := emuKindNamed("fast").start(t, 20, 5, 7)
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%s$ cmd %d\r\n", promptMark, i)
		for j := range i % 4 {
			fmt.Fprintf(&b, "out %d.%d\r\n", i, j)
		}
		if i%9 == 0 {
			b.WriteString("\x1b[2J\x1b[H")
		}
	}
	b.WriteString(promptMark + "$ old\r\x1b[2K$ redrawn")
	_, _ = e.Write([]byte(b.String()))
	h := newHistory(e.Emulator)
	prompts := 0
	for i := range h.Len() {
		text := h.LineText(i)
		if got := h.IsPrompt(i); got != strings.HasPrefix(text, "$") {
			t.Errorf("line %d %q: IsPrompt %v", i, text, got)
		}
		prompts += btoi(h.IsPrompt(i))
	}
	if prompts < 3 {
		t.Errorf("only %d prompts in the history", prompts)
	}
}

func TestHistoryPromptsElsewhere(t *testing.T) {
	vt := newTestEmu(t, 20, 4, 3)
	_, _ = vt.Write([]byte(promptMark + "$ ls\r\n"))
	if h := newHistory(vt); h.IsPrompt(0) {
		t.Error("x/vt history has a prompt mark")
	}
	h := NewHistory([][]Cell{nil, nil, nil}, 0)
	h.MarkPrompt(1)
	h.MarkPrompt(7)
	if !h.IsPrompt(1) || h.IsPrompt(0) || h.IsPrompt(7) {
		t.Error("MarkPrompt did not mark line 1 alone")
	}
	if line, ok := h.NextPrompt(0); !ok || line != 1 {
		t.Errorf("NextPrompt(0) = %d, %v", line, ok)
	}
}

func TestPromptMarksThroughShell(t *testing.T) {
	s := startShell(t, Options{Rows: 10})
	run(t, s, `printf '\e]133;A\a%s\n' '> marked'`)
	waitLine(t, s, "> marked")
	h := s.History()
	for i := range h.Len() {
		if text := h.LineText(i); h.IsPrompt(i) != (text == "> marked") {
			t.Errorf("line %d %q: IsPrompt %v", i, text, h.IsPrompt(i))
		}
	}
}
