package panes

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/swarm"
)

func toolCall(id, name string, args any) provider.ToolCall {
	raw, _ := json.Marshal(args)
	return provider.ToolCall{ID: id, Name: name, Arguments: string(raw)}
}

// recorded is a session's transcript of the turn live() plays.
func recorded() []provider.Message {
	return []provider.Message{
		{Role: "user", Content: "why does the build fail?\n\n" + memory.RecallHeader + "\n- [fact] tests need -race\n</memory>"},
		{Role: "assistant", Content: "Let me run the tests first.", ToolCalls: []provider.ToolCall{toolCall("c1", "shell", map[string]string{"command": "go test ./..."})}},
		{Role: "tool", ToolCallID: "c1", Content: "ok  \tpkg/a\nFAIL\tpkg/b\n--- FAIL: TestX\nline 4\nline 5\n<ctx id=\"ctx:5f2a9c1e7b3d\" n=812 s=\"go test log\"/>"},
		{Role: "user", Content: "[notice] agent-2 edited x.go after you read it; the diff is ctx:0123456789ab"},
		{Role: "assistant", ToolCalls: []provider.ToolCall{toolCall("c2", "write_file", map[string]string{"path": "x.go"})}},
		{Role: "tool", ToolCallID: "c2", Content: "permission denied: the user said no"},
		{Role: "assistant", Content: "TestX fails; the log is ctx:5f2a9c1e7b3d."},
	}
}

// live plays, as live events, the turn recorded() holds.
func live(p *AgentPane) {
	if err := p.SendTask("why does the build fail?"); err != nil {
		panic(err)
	}
	loop(p, agent.Event{Type: agent.EvTextDelta, Text: "Let me run the tests"})
	loop(p, agent.Event{Type: agent.EvTextDelta, Text: " first."})
	for _, e := range []agent.Event{
		{Type: agent.EvToolCall, Tool: "shell", CallID: "c1", Args: `{"command":"go test ./..."}`},
		{Type: agent.EvToolResult, Tool: "shell", CallID: "c1", Text: recorded()[2].Content},
		{Type: agent.EvNotice, Text: recorded()[3].Content},
		{Type: agent.EvToolCall, Tool: "write_file", CallID: "c2", Args: `{"path":"x.go"}`},
		{Type: agent.EvPermission, Tool: "write_file", CallID: "c2", Decision: "deny", Text: "the user said no"},
		{Type: agent.EvToolResult, Tool: "write_file", CallID: "c2", Text: "permission denied: the user said no", IsError: true},
	} {
		loop(p, e)
	}
	loop(p, agent.Event{Type: agent.EvTextDelta, Text: "TestX fails; the log is ctx:5f2a9c1e7b3d."})
	p.OnEvent(swarm.Event{Type: swarm.EvFinished, Agent: "agent-1"})
}

func paneWith(t *testing.T, tr swarm.Transcript) *AgentPane {
	t.Helper()
	fa := &fakeAgents{info: swarm.Info{State: swarm.StateIdle}, transcript: tr}
	return NewAgentPane(testEnv(), "agent-1", fa, func(string) error { return nil })
}

func TestAgentPaneReplaysATranscriptAsItShowedLive(t *testing.T) {
	replayed := paneWith(t, swarm.Transcript{Messages: recorded(), Seq: 9})
	shown, _, _ := newAgentPane(t)
	live(shown)
	for _, expand := range []bool{false, true} {
		if expand {
			key(replayed, tcell.KeyCtrlE, 0, tcell.ModCtrl)
			key(shown, tcell.KeyCtrlE, 0, tcell.ModCtrl)
		}
		got, want := screenText(render(t, replayed, 100, 40)), screenText(render(t, shown, 100, 40))
		if got != want {
			t.Fatalf("expanded %v: the replayed transcript\n%s\ndiffers from the live one\n%s", expand, got, want)
		}
		if !reflect.DeepEqual(replayed.view.refs, shown.view.refs) || len(replayed.view.refs) != 3 {
			t.Fatalf("refs %v, live %v", replayed.view.refs, shown.view.refs)
		}
	}
	if text := screenText(render(t, replayed, 100, 40)); strings.Contains(text, "tests need -race") || !strings.Contains(text, "denied: the user said no") {
		t.Fatalf("replayed transcript:\n%s", text)
	}
}

func TestAgentPaneMarksTheResumedSessionAndSkipsCoveredEvents(t *testing.T) {
	msgs := append(recorded()[:3],
		provider.Message{Role: "assistant", Content: "<ctx_get id=\"ctx:0123456789ab\"/>"},
		provider.Message{Role: "user", Content: "<ctx_exact id=\"ctx:0123456789ab\" original_chars=4>\ndiff\n</ctx_exact>"},
		provider.Message{Role: "assistant", Content: "after the restart"})
	p := paneWith(t, swarm.Transcript{Messages: msgs, Resumed: 3, Session: "20250101-abc", Seq: 7, Events: []swarm.Event{
		{Type: swarm.EvTurn, Agent: "agent-1", Text: "and now?", Seq: 6},
		{Type: swarm.EvAgent, Agent: "agent-1", Loop: agent.Event{Type: agent.EvTextDelta, Text: "working"}, Seq: 7},
	}})
	p.OnEvent(swarm.Event{Type: swarm.EvAgent, Agent: "agent-1", Loop: agent.Event{Type: agent.EvTextDelta, Text: " twice"}, Seq: 7})
	p.OnEvent(swarm.Event{Type: swarm.EvAgent, Agent: "agent-1", Loop: agent.Event{Type: agent.EvTextDelta, Text: " on"}, Seq: 8})
	text := screenText(render(t, p, 100, 30))
	order := []string{"› why does the build fail?", "⏺ shell", "— resumed session 20250101-abc —", "after the restart", "› and now?", "working on"}
	at := -1
	for _, want := range order {
		i := strings.Index(text, want)
		if i <= at || strings.Count(text, want) != 1 {
			t.Fatalf("%q is not once, after what precedes it:\n%s", want, text)
		}
		at = i
	}
	if strings.Contains(text, "twice") || strings.Contains(text, "original_chars") {
		t.Fatalf("an event the transcript covers, or a page-in answer, was shown:\n%s", text)
	}
}

func TestAgentPaneShowsUntrustedHistoryLiterally(t *testing.T) {
	p := paneWith(t, swarm.Transcript{Seq: 1, Messages: []provider.Message{
		{Role: "user", Content: "[red]mine[-] \x1b[31mred"},
		{Role: "assistant", Content: "[red]alarm[-] \x1b[2J\x1b]0;pwned\x07 done", ToolCalls: []provider.ToolCall{{ID: "r", Name: "read_file", Arguments: "{\"path\":\"\x1b[31mx\"}"}}},
		{Role: "tool", ToolCallID: "r", Content: "[yellow::b]file[-:-:-]\u009b31m\x00bin"},
	}})
	s := render(t, p, 100, 20)
	text := screenText(s)
	for _, want := range []string{"› [red]mine[-] red", "[red]alarm[-]", "[yellow::b]file[-:-:-]"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not shown literally:\n%s", want, text)
		}
	}
	if strings.ContainsAny(text, "\x1b\x07\u009b\x00") || strings.Contains(text, "pwned") || strings.Contains(text, "[31m") {
		t.Fatalf("an escape sequence reached the screen:\n%q", text)
	}
	base := testEnv().Theme.ChatAssistant.TCell()
	for y, l := range strings.Split(text, "\n") {
		if x := strings.Index(l, "alarm"); x >= 0 && styleAt(s, x, y) != base {
			t.Fatal("a colour tag changed the style")
		}
	}
}

func TestSplitTurn(t *testing.T) {
	block := "\n\n<ctx_exact id=\"ctx:0123456789ab\" original_chars=9>\nab\n</ctx_\n</ctx_exact>"
	escaped := "\n\n<ctx_exact id=\"ctx:00112233aabb\" original_chars=2 escaped=\"true\">\n\\xff\\xfe\n</ctx_exact>"
	hint := "\n\n" + memory.RecallHeader + "\n- [fact] x\n</memory>"
	for _, tc := range []struct {
		in    string
		typed string
		ids   []string
	}{
		{"plain", "plain", nil},
		{"hinted" + hint, "hinted", nil},
		{"with a block" + block, "with a block", []string{"ctx:0123456789ab"}},
		{"two" + block + escaped + hint, "two", []string{"ctx:0123456789ab", "ctx:00112233aabb"}},
		{"typed \n\n<ctx_exact id=\"ctx:0\" by hand" + block, "typed \n\n<ctx_exact id=\"ctx:0\" by hand", []string{"ctx:0123456789ab"}},
		{"cut" + block[:len(block)-3], "cut" + block[:len(block)-3], nil},
		{"too long\n\n<ctx_exact id=\"ctx:0123456789ab\" original_chars=99>\nab\n</ctx_exact>", "too long\n\n<ctx_exact id=\"ctx:0123456789ab\" original_chars=99>\nab\n</ctx_exact>", nil},
	} {
		typed, ids := splitTurn(tc.in)
		if typed != tc.typed || !reflect.DeepEqual(ids, tc.ids) {
			t.Errorf("splitTurn(%q) = %q, %q; want %q, %q", tc.in, typed, ids, tc.typed, tc.ids)
		}
	}
}
