package swarm

import (
	"fmt"
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
	h.share()
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
	src := "package x\n\nfunc F() int {\n\treturn 1\n}\n"
	if err := os.WriteFile(filepath.Join(h.workspace(reader), "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
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
			tr := newTouches(tc.vault, nil)
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
	tr := newTouches(vaulttest.MustOpen(t), nil)
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
	if _, ok := tr.readers["x.go"]["b"]; len(tr.readers["x.go"]) != 1 || !ok {
		t.Fatalf("readers of x.go: %v, want only the editor", tr.readers["x.go"])
	}
}

// touchRig is touches over real directories: agents a and b share one,
// c works in another.
type touchRig struct {
	t        *testing.T
	tr       *touches
	shared   string
	other    string
	nextCall int
}

func newTouchRig(t *testing.T) *touchRig {
	r := &touchRig{t: t, shared: t.TempDir(), other: t.TempDir()}
	r.tr = newTouches(vaulttest.MustOpen(t), func(name string) string {
		if name == "c" {
			return r.other
		}
		return r.shared
	})
	for _, d := range []string{r.shared, r.other} {
		r.write(d, "x.go", "package x\n")
	}
	return r
}

func (r *touchRig) write(dir, name, text string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// tool runs one tool call of agent through the tracker: the call, what
// happens while it runs, then its result.
func (r *touchRig) tool(agentName, tool, args string, during func()) {
	r.nextCall++
	id := fmt.Sprint(r.nextCall)
	r.tr.observe(agentName, agent.Event{Type: agent.EvToolCall, Tool: tool, CallID: id, Args: args})
	if tool != "read_file" {
		r.tr.observe(agentName, agent.Event{Type: agent.EvPermission, Tool: tool, CallID: id, Decision: "allow"})
	}
	if during != nil {
		during()
	}
	r.tr.observe(agentName, agent.Event{Type: agent.EvToolResult, Tool: tool, CallID: id, Text: "done", Preview: "--- a/x.go\n+++ b/x.go\n"})
}

func (r *touchRig) read(agentName string) { r.tool(agentName, "read_file", `{"path":"x.go"}`, nil) }

func TestTouchesNoticeChangesOnDisk(t *testing.T) {
	t.Run("another agent's shell command", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		r.tool("b", "shell", `{"command":"echo more >> x.go"}`, func() { r.write(r.shared, "x.go", "package x\n// more\n") })
		if got := r.tr.take("a"); len(got) != 1 || got[0] != "b's shell command changed x.go after you read it; read it again before relying on what you saw" {
			t.Fatalf("a was told %q", got)
		}
		if got := r.tr.take("b"); len(got) != 0 {
			t.Fatalf("b was told about its own command: %q", got)
		}
	})
	t.Run("outside the agents", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		r.write(r.shared, "x.go", "package x // edited in vim\n")
		if got := r.tr.take("a"); len(got) != 1 || !strings.HasPrefix(got[0], "something outside the agents' file tools (an editor, a build) changed x.go after you read it") {
			t.Fatalf("a was told %q", got)
		}
		if got := r.tr.take("a"); len(got) != 0 {
			t.Fatalf("a was told twice: %q", got)
		}
	})
	t.Run("deleted", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		if err := os.Remove(filepath.Join(r.shared, "x.go")); err != nil {
			t.Fatal(err)
		}
		if got := r.tr.take("a"); len(got) != 1 || !strings.Contains(got[0], " deleted x.go after you read it") {
			t.Fatalf("a was told %q", got)
		}
	})
	t.Run("its own shell command", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		r.tool("a", "shell", `{"command":"gofmt -w x.go"}`, func() { r.write(r.shared, "x.go", "package x\n\n") })
		if got := r.tr.take("a"); len(got) != 0 {
			t.Fatalf("a was told about its own command: %q", got)
		}
	})
	t.Run("a change while another agent's command runs waits for its result", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		r.tool("b", "shell", `{"command":"make fmt"}`, func() {
			r.write(r.shared, "x.go", "package x\n// formatted\n")
			if got := r.tr.take("a"); len(got) != 0 {
				t.Fatalf("a was told %q while b's command ran", got)
			}
		})
		if got := r.tr.take("a"); len(got) != 1 || !strings.HasPrefix(got[0], "b's shell command changed x.go") {
			t.Fatalf("a was told %q after b's command", got)
		}
	})
	t.Run("a file tool's edit is told once, with its diff", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		r.tool("b", "edit_file", `{"path":"x.go"}`, func() { r.write(r.shared, "x.go", "package x\n// edited\n") })
		if got := r.tr.take("a"); len(got) != 1 || !strings.HasPrefix(got[0], "b edited x.go after you read it; the diff is ctx:") {
			t.Fatalf("a was told %q", got)
		}
	})
	t.Run("another directory is another file", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("c")
		r.tool("b", "edit_file", `{"path":"x.go"}`, func() { r.write(r.shared, "x.go", "package x\n// edited\n") })
		r.tool("a", "shell", `{"command":"echo >> x.go"}`, func() { r.write(r.shared, "x.go", "package x\n// edited\n\n") })
		if got := r.tr.take("c"); len(got) != 0 {
			t.Fatalf("c, in its own worktree, was told %q", got)
		}
	})
}

func TestAnEditOutsideTheAgentsReachesTheReader(t *testing.T) {
	h := newHarness(t, permission.AutoAllow)
	h.share()
	g := h.gate()
	gated := g.step("")
	gated.ToolCalls = []provider.ToolCall{call("a2", "list_files", map[string]any{})}
	reader, srv := h.spawn(
		providertest.ToolStep(call("a1", "read_file", map[string]any{"path": "x.go"})),
		gated,
		providertest.TextStep("I will read x.go again."))
	path := filepath.Join(h.workspace(reader), "x.go")
	if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := h.watch()
	h.send(reader, "look at x.go")
	g.wait(t)
	// The user saves the file in an editor while the agent works.
	if err := os.WriteFile(path, []byte("package x\n\n// Edited by hand.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.release()
	w.until("the reader's turn to end", is(EvFinished, reader))
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the reader made %d calls, want 3", len(reqs))
	}
	if got := notices(reqs[1].Messages); len(got) != 0 {
		t.Fatalf("the call before the edit carried %q", got)
	}
	got := notices(reqs[2].Messages)
	if len(got) != 1 || !strings.Contains(got[0], "outside the agents' file tools (an editor, a build) changed x.go after you read it") {
		t.Fatalf("the call after the edit carried %q", got)
	}
}

func TestTouchesShellCommandsThatDoNotRun(t *testing.T) {
	t.Run("a change while a command waits for approval is not the command's", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		r.tr.observe("b", agent.Event{Type: agent.EvToolCall, Tool: "shell", CallID: "s1", Args: `{"command":"rm x.go"}`})
		r.write(r.shared, "x.go", "package x // saved while b waits\n")
		if got := r.tr.take("a"); len(got) != 1 || !strings.HasPrefix(got[0], "something outside the agents' file tools") {
			t.Fatalf("a was told %q", got)
		}
		r.tr.observe("b", agent.Event{Type: agent.EvPermission, Tool: "shell", CallID: "s1", Decision: "deny"})
		r.tr.observe("b", agent.Event{Type: agent.EvToolResult, Tool: "shell", CallID: "s1", IsError: true, Text: "permission denied"})
		if got := r.tr.take("a"); len(got) != 0 {
			t.Fatalf("a denied command was blamed: %q", got)
		}
	})
	t.Run("a command cut short by the end of its turn", func(t *testing.T) {
		r := newTouchRig(t)
		r.read("a")
		r.tr.observe("b", agent.Event{Type: agent.EvToolCall, Tool: "shell", CallID: "s1", Args: `{"command":"make"}`})
		r.tr.observe("b", agent.Event{Type: agent.EvPermission, Tool: "shell", CallID: "s1", Decision: "allow"})
		r.write(r.shared, "x.go", "package x // generated\n")
		r.tr.turnEnded("b") // cancelled: no result ever comes
		if got := r.tr.take("a"); len(got) != 1 || !strings.HasPrefix(got[0], "b's shell command changed x.go") {
			t.Fatalf("a was told %q", got)
		}
		r.write(r.shared, "x.go", "package x // saved by hand afterwards\n")
		if got := r.tr.take("a"); len(got) != 1 || !strings.HasPrefix(got[0], "something outside") {
			t.Fatalf("after b's turn ended, a was told %q", got)
		}
	})
}

// TestTouchesEditIsToldOnce races readers' calls against another agent's
// edits: the edit is told as the editor's, never also as a change made
// outside the tools.
func TestTouchesEditIsToldOnce(t *testing.T) {
	r := newTouchRig(t)
	for i := range 300 {
		r.read("a")
		done := make(chan []string)
		go func() {
			var got []string
			for range 20 {
				got = append(got, r.tr.take("a")...)
			}
			done <- got
		}()
		r.tool("b", "edit_file", `{"path":"x.go"}`, func() { r.write(r.shared, "x.go", strings.Repeat("x", i+20)) })
		got := append(<-done, r.tr.take("a")...)
		for _, n := range got {
			if strings.HasPrefix(n, "something outside") {
				t.Fatalf("round %d: b's edit was also told as an outside change: %q", i, got)
			}
		}
	}
}
