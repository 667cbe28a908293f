package swarm

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// notices returns the notice messages of msgs.
func notices(msgs []provider.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == "user" && strings.HasPrefix(m.Content, agent.NoticePrefix) {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestFileTouchNoticeReachesTheReaderBeforeItsNextCall(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	g := h.gate()
	// The reader reads x.go, then its next call waits at the gate while
	// the editor changes the file; the call after that must carry the
	// notice, and a later turn must not repeat it.
	gated := g.step("")
	gated.ToolCalls = []provider.ToolCall{call("a2", "list_files", map[string]any{})}
	reader, readerSrv := h.spawn(
		providertest.ToolStep(call("a1", "read_file", map[string]any{"path": "x.go"})),
		gated,
		providertest.TextStep("I will read x.go again."),
		providertest.TextStep("Nothing else."))
	editor, editorSrv := h.spawn(
		providertest.ToolStep(call("b1", "read_file", map[string]any{"path": "./x.go"})),
		providertest.ToolStep(call("b2", "edit_file", map[string]any{"path": "x.go",
			"old_string": "return 1", "new_string": "return 2"})),
		providertest.TextStep("changed"))
	for _, name := range []string{reader, editor} {
		src := "package x\n\nfunc F() int {\n\treturn 1\n}\n"
		if err := os.WriteFile(filepath.Join(h.workspace(name), "x.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := h.watch()
	h.send(reader, "look at x.go")
	g.wait(t)
	h.send(editor, "make F return 2")
	w.until("the editor's turn to end", is(EvFinished, editor))
	g.release()
	w.until("the reader's turn to end", is(EvFinished, reader))
	h.send(reader, "anything else?")
	w.until("the reader's second turn to end", is(EvFinished, reader))

	reqs := readerSrv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the reader made %d calls, want 4", len(reqs))
	}
	for i := range 2 {
		if got := notices(reqs[i].Messages); len(got) != 0 {
			t.Fatalf("the reader's call %d carried %q before the edit", i+1, got)
		}
	}
	third := reqs[2].Messages
	got := notices(third)
	want := regexp.MustCompile(`^\[notice\] agent-2 edited x\.go after you read it; the diff is (ctx:[0-9a-f]+) \(ctx_get`)
	if len(got) != 1 || third[len(third)-1].Content != got[0] || !want.MatchString(got[0]) {
		t.Fatalf("the reader's next call ends with %+v; notices %q", third[len(third)-1], got)
	}
	id := want.FindStringSubmatch(got[0])[1]
	diff, err := h.vault.Get(id)
	if err != nil || !strings.Contains(string(diff), "-\treturn 1") || !strings.Contains(string(diff), "+\treturn 2") {
		t.Fatalf("the cited diff %s: %q, %v", id, diff, err)
	}
	if got := notices(reqs[3].Messages); len(got) != 1 {
		t.Fatalf("the reader's next turn carried %d notices, want the one recorded", len(got))
	}
	for i, req := range editorSrv.Requests() {
		if got := notices(req.Messages); len(got) != 0 {
			t.Fatalf("the editor's call %d carried %q about its own edit", i+1, got)
		}
	}
}

// noPut is a vault that cannot keep a diff.
type noPut struct{}

func (noPut) Get(string) ([]byte, error)      { return nil, vault.ErrNotFound }
func (noPut) Meta(string) (vault.Meta, error) { return vault.Meta{}, vault.ErrNotFound }

func TestTouchesFollowReadsAndEdits(t *testing.T) {
	toolCall := func(id, tool, path string) agent.Event {
		return agent.Event{Type: agent.EvToolCall, Tool: tool, CallID: id, Args: `{"path":"` + path + `"}`}
	}
	result := func(id string, isErr bool) agent.Event {
		return agent.Event{Type: agent.EvToolResult, CallID: id, IsError: isErr,
			Text: "edited", Preview: "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"}
	}
	type step struct {
		agent string
		ev    agent.Event
	}
	tests := []struct {
		name  string
		vault Vault
		steps []step
		want  map[string]string // agent → its notices joined by "|"
	}{
		{"read then edited by another", vaulttest.MustOpen(t), []step{
			{"a", toolCall("1", "read_file", "x.go")}, {"a", result("1", false)},
			{"b", toolCall("2", "edit_file", "./x.go")}, {"b", result("2", false)},
		}, map[string]string{"a": "b edited x.go after you read it; the diff is ctx:"}},
		{"a write is reported as one", vaulttest.MustOpen(t), []step{
			{"a", toolCall("1", "read_file", "x.go")}, {"a", result("1", false)},
			{"b", toolCall("2", "write_file", "x.go")}, {"b", result("2", false)},
		}, map[string]string{"a": "b wrote x.go after you read it"}},
		{"the editor is not told", vaulttest.MustOpen(t), []step{
			{"a", toolCall("1", "read_file", "x.go")}, {"a", result("1", false)},
			{"a", toolCall("2", "edit_file", "x.go")}, {"a", result("2", false)},
		}, map[string]string{}},
		{"a failed read is no read", vaulttest.MustOpen(t), []step{
			{"a", toolCall("1", "read_file", "x.go")}, {"a", result("1", true)},
			{"b", toolCall("2", "edit_file", "x.go")}, {"b", result("2", false)},
		}, map[string]string{}},
		{"a failed edit is no edit", vaulttest.MustOpen(t), []step{
			{"a", toolCall("1", "read_file", "x.go")}, {"a", result("1", false)},
			{"b", toolCall("2", "edit_file", "x.go")}, {"b", result("2", true)},
		}, map[string]string{}},
		{"an editor becomes a reader", vaulttest.MustOpen(t), []step{
			{"a", toolCall("1", "edit_file", "x.go")}, {"a", result("1", false)},
			{"b", toolCall("2", "write_file", "x.go")}, {"b", result("2", false)},
		}, map[string]string{"a": "b wrote x.go after you read it"}},
		{"another file is not this one", vaulttest.MustOpen(t), []step{
			{"a", toolCall("1", "read_file", "x.go")}, {"a", result("1", false)},
			{"b", toolCall("2", "edit_file", "y.go")}, {"b", result("2", false)},
		}, map[string]string{}},
		{"no diff without a vault that keeps one", noPut{}, []step{
			{"a", toolCall("1", "read_file", "x.go")}, {"a", result("1", false)},
			{"b", toolCall("2", "edit_file", "x.go")}, {"b", result("2", false)},
		}, map[string]string{"a": "b edited x.go after you read it; read it again"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTouches(tc.vault)
			for _, s := range tc.steps {
				tr.observe(s.agent, s.ev)
			}
			for _, name := range []string{"a", "b"} {
				got := strings.Join(tr.take(name), "|")
				if want := tc.want[name]; want == "" && got != "" || !strings.HasPrefix(got, want) {
					t.Fatalf("%s was told %q, want %q", name, got, want)
				}
				if again := tr.take(name); len(again) != 0 {
					t.Fatalf("%s was told %q twice", name, again)
				}
			}
		})
	}
}

func TestRemovedAgentIsNoLongerAReader(t *testing.T) {
	tr := newTouches(vaulttest.MustOpen(t))
	tr.observe("a", agent.Event{Type: agent.EvToolCall, Tool: "read_file", CallID: "1", Args: `{"path":"x.go"}`})
	tr.observe("a", agent.Event{Type: agent.EvToolResult, CallID: "1", Text: "package x"})
	tr.forget("a")
	tr.observe("b", agent.Event{Type: agent.EvToolCall, Tool: "write_file", CallID: "2", Args: `{"path":"x.go"}`})
	tr.observe("b", agent.Event{Type: agent.EvToolResult, CallID: "2", Text: "wrote x.go"})
	// A late read of the removed agent does not make it a reader again.
	tr.observe("a", agent.Event{Type: agent.EvToolCall, Tool: "read_file", CallID: "3", Args: `{"path":"x.go"}`})
	tr.observe("a", agent.Event{Type: agent.EvToolResult, CallID: "3", Text: "package x"})
	if got := tr.take("a"); len(got) != 0 {
		t.Fatalf("a removed agent was told %q", got)
	}
	if len(tr.readers["x.go"]) != 1 || !tr.readers["x.go"]["b"] {
		t.Fatalf("readers of x.go: %v, want only the editor", tr.readers["x.go"])
	}
}
