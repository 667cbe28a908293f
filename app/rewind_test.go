package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestRewindFilesAndConversation runs two turns of kws run on one session,
// each changing files through the shell, then rewinds to before turn 2:
// the files come back byte for byte (one the turn made is gone), the
// conversation forks, and the next run on the fork sends the model turn
// 1 and not turn 2. A file changed by someone else since is kept unless
// forced, and the rewind itself can be undone.
func TestRewindFilesAndConversation(t *testing.T) {
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: `{"command":"printf 'one\n' > a.txt; printf 'keep\n' > c.txt"}`}),
		providertest.TextStep("turn one done"),
		providertest.ToolStep(provider.ToolCall{ID: "c2", Name: "shell", Arguments: `{"command":"printf 'two\n' >> a.txt; printf 'new\n' > b.txt; printf 'agent\n' > c.txt"}`}),
		providertest.TextStep("turn two done"),
		providertest.TextStep("after the rewind"))
	var warnings []string
	var events []agent.Event
	h := headlessFor(t, srv, "task one", &warnings, &events)
	h.Yes = true
	run, err := RunHeadless(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	h.Task, h.Resume = "task two", run.Transcript
	if _, err := RunHeadless(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	file := func(name string) string {
		b, err := os.ReadFile(filepath.Join(h.Workspace, name))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	if file("a.txt") != "one\ntwo\n" || file("b.txt") != "new\n" {
		t.Fatalf("after two turns: a %q, b %q", file("a.txt"), file("b.txt"))
	}
	// Someone else edits c.txt after the agent's last call.
	if err := os.WriteFile(filepath.Join(h.Workspace, "c.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rewind := func(r RewindRequest) (string, string) {
		t.Helper()
		v, release, err := h.OpenVault()
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		r, err = r.Checked()
		if err != nil {
			t.Fatal(err)
		}
		reply, fork, err := RewindSession(v, h.DataDir, run.Transcript, r)
		if err != nil {
			t.Fatalf("%+v: %v\n%s", r, err, reply)
		}
		return reply, fork
	}
	list, _ := rewind(RewindRequest{})
	for _, want := range []string{"turn 1", "turn 2", "b.txt  +1 −0", "a.txt  +1 −0"} {
		if !strings.Contains(list, want) {
			t.Fatalf("the list lacks %q:\n%s", want, list)
		}
	}
	preview, _ := rewind(RewindRequest{Turn: 2})
	if !strings.Contains(preview, "c.txt") || !strings.Contains(preview, "changed since the agent's last checkpoint") || !strings.Contains(preview, "-two") {
		t.Fatalf("the preview:\n%s", preview)
	}
	if file("a.txt") != "one\ntwo\n" {
		t.Fatal("the preview changed a file")
	}
	done, fork := rewind(RewindRequest{Turn: 2, Yes: true})
	if fork == "" || !strings.Contains(done, "kept 1") {
		t.Fatalf("the rewind said:\n%s", done)
	}
	if file("a.txt") != "one\n" || !strings.HasPrefix(file("b.txt"), "<") || file("c.txt") != "mine\n" {
		t.Fatalf("after the rewind: a %q, b %q, c %q", file("a.txt"), file("b.txt"), file("c.txt"))
	}
	// The next run on the fork: the model sees turn 1, not turn 2.
	h.Task, h.Resume = "task three", fork
	if _, err := RunHeadless(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages {
		sent = append(sent, m.Content)
	}
	all := strings.Join(sent, "\n")
	if !strings.Contains(all, "task one") || !strings.Contains(all, "turn one done") || strings.Contains(all, "task two") || strings.Contains(all, "turn two done") {
		t.Fatalf("the model's request after the rewind:\n%s", all)
	}
	// Undo: the files go back to how the rewind found them.
	rewind(RewindRequest{Undo: true, Yes: true})
	if file("a.txt") != "one\ntwo\n" || file("b.txt") != "new\n" {
		t.Fatalf("after the undo: a %q, b %q", file("a.txt"), file("b.txt"))
	}
}

// TestWorkstationRewindsFromTheAgentPane: Ctrl-z (/rewind) in an agent
// pane lists the turns, /rewind N previews, and with --yes puts the file back and continues
// the agent on the forked conversation, whose next request leaves the
// rewound turn out.
func TestWorkstationRewindsFromTheAgentPane(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.srv.Push(
		providertest.TextStep("turn one done"),
		providertest.ToolStep(provider.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"path":"out.txt","content":"hello\n"}`}),
		providertest.TextStep("turn two done"),
		providertest.TextStep("after the rewind"),
	)
	r.typeText("task one")
	r.press("Enter")
	r.waitFor("turn one done")
	r.typeText("task two")
	r.press("Enter")
	r.waitFor("y  allow once")
	r.press("y")
	r.waitFor("turn two done")
	r.waitFor("agent-1 ○ idle")
	r.press("Ctrl-z") // the pane's key for /rewind
	r.waitFor("turn 2")
	r.typeText("/rewind 2")
	r.press("Enter")
	r.waitFor("/rewind 2 --yes does it")
	if _, err := os.Stat(filepath.Join(r.ws, "out.txt")); err != nil {
		t.Fatalf("the preview removed out.txt: %v", err)
	}
	r.typeText("/rewind 2 --yes")
	r.press("Enter")
	r.waitFor("restored 1 files")
	if _, err := os.Stat(filepath.Join(r.ws, "out.txt")); err == nil {
		t.Fatal("out.txt is still there after the rewind")
	}
	r.waitFor("agent-1 ○ idle")
	r.typeText("task three")
	r.press("Enter")
	r.waitFor("after the rewind")
	reqs := r.srv.Requests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages {
		sent = append(sent, m.Content)
	}
	all := strings.Join(sent, "\n")
	if !strings.Contains(all, "task one") || strings.Contains(all, "task two") {
		t.Fatalf("the request after the rewind:\n%s", all)
	}
}
