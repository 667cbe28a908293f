package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/hooks/hookstest"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// writeConfig writes a config.toml.
func writeConfig(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// withUserConfig makes h read its user config from h.ConfigHome.
func withUserConfig(h *Headless) {
	getenv := h.Getenv
	h.Getenv = func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return h.ConfigHome
		}
		return getenv(k)
	}
}

// TestHeadlessRunsTheUsersHooks: kws run builds its agent with the user's
// hooks, which run in the sandbox in the workspace: Claude Code's
// documented script blocks the model's rm, whose next request carries the
// script's stderr, and a PostToolUse hook reads the next call's output and
// writes in the workspace.
func TestHeadlessRunsTheUsersHooks(t *testing.T) {
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: `{"command":"rm -rf src; touch ran"}`}),
		providertest.ToolStep(provider.ToolCall{ID: "c2", Name: "shell", Arguments: `{"command":"echo hello"}`}),
		providertest.TextStep("done"))
	var warnings []string
	var events []agent.Event
	h := headlessFor(t, srv, "clean up", &warnings, &events)
	h.Yes = true
	withUserConfig(&h)
	block := hookstest.Script(t, hookstest.ClaudeBlockRm)
	post := hookstest.Script(t, "#!/bin/bash\njq -r .tool_response.stdout > \"$CLAUDE_PROJECT_DIR/post.txt\"\n")
	writeConfig(t, filepath.Join(h.ConfigHome, "kws", "config.toml"), `
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "`+block+`"

[[hooks.PostToolUse]]
matcher = "shell"
[[hooks.PostToolUse.hooks]]
type = "command"
command = "`+post+`"
timeout = 30
`)
	if _, err := RunHeadless(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || last.Content != "blocked by a PreToolUse hook: Blocked: rm commands are not allowed" {
		t.Fatalf("the model got %+v", last)
	}
	if _, err := os.Stat(filepath.Join(h.Workspace, "ran")); err == nil {
		t.Fatal("the blocked command ran")
	}
	if data, err := os.ReadFile(filepath.Join(h.Workspace, "post.txt")); err != nil || string(data) != "hello\n\n" {
		t.Fatalf("post.txt: %q %v (events %+v)", data, err, events)
	}
}

// TestHeadlessWorkspaceHooksNeedApproval: a workspace's hook does not run
// until the user approves it, and the run says so; kws run on a terminal
// asks, and a yes is recorded: the hook runs, then and later, and its
// context reaches the model.
func TestHeadlessWorkspaceHooksNeedApproval(t *testing.T) {
	srv := providertest.New(t, providertest.TextStep("one"), providertest.TextStep("two"),
		providertest.TextStep("three"), providertest.TextStep("four"))
	var warnings []string
	var events []agent.Event
	h := headlessFor(t, srv, "hello", &warnings, &events)
	withUserConfig(&h)
	writeConfig(t, filepath.Join(h.Workspace, ".kws", "config.toml"), `
[[hooks.UserPromptSubmit]]
[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "touch \"$CLAUDE_PROJECT_DIR/ran\"; echo 'the workspace says hi'"
`)
	ran := func() bool {
		err := os.Remove(filepath.Join(h.Workspace, "ran"))
		return err == nil
	}
	refused := func() []string {
		var said []string
		for _, e := range events {
			if e.Type == agent.EvHook && e.IsError {
				said = append(said, e.Text)
			}
		}
		events = nil
		return said
	}
	if _, err := RunHeadless(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if said := refused(); ran() || len(said) != 1 || !strings.Contains(said[0], "kws hooks trust") {
		t.Fatalf("unapproved: said %q", said)
	}
	var asked []string
	answer := false
	h.AskHooks = func(what string) bool { asked = append(asked, what); return answer }
	if _, err := RunHeadless(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if said := refused(); ran() || len(said) != 1 || len(asked) != 1 || !strings.Contains(asked[0], `UserPromptSubmit: touch "$CLAUDE_PROJECT_DIR/ran"`) {
		t.Fatalf("declined: asked %q, said %q", asked, said)
	}
	answer = true
	for _, run := range []int{2, 3} {
		if _, err := RunHeadless(context.Background(), h); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if said := refused(); !ran() || len(said) != 0 || !strings.Contains(reqs[run].Messages[len(reqs[run].Messages)-1].Content, "the workspace says hi") {
			t.Fatalf("run %d: said %q, request %+v", run, said, reqs[run].Messages)
		}
	}
	if len(asked) != 2 {
		t.Fatalf("asked %d times, want 2 (the yes was recorded)", len(asked))
	}
}

// TestWorkstationShowsAgentWaitingHooks: in the workstation, an agent
// that starts waiting for approval fires Notification and AgentWaiting,
// one restarted (Ctrl-r) SessionEnd with reason clear, and what the hooks
// say shows in its pane.
func TestWorkstationShowsAgentWaitingHooks(t *testing.T) {
	say := hookstest.Script(t, "#!/bin/bash\njq -c '{systemMessage: (.hook_event_name + \" for \" + (.tool_name // .notification_type // .reason))}'\n")
	r := newWSRigWith(t, 160, 48, true, func(string, *Flags) {
		writeConfig(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kws", "config.toml"), `
[[hooks.Notification]]
[[hooks.Notification.hooks]]
type = "command"
command = "`+say+`"

[[hooks.SessionEnd]]
[[hooks.SessionEnd.hooks]]
type = "command"
command = "`+say+`"

[[hooks.AgentWaiting]]
matcher = "Write"
[[hooks.AgentWaiting.hooks]]
type = "command"
command = "`+say+`"
`)
	})
	r.srv.Push(
		providertest.ToolStep(provider.ToolCall{ID: "call-1", Name: "write_file", Arguments: `{"path":"out.txt","content":"hello\n"}`}),
		providertest.TextStep("wrote it"))
	r.typeText("write out.txt")
	r.press("Enter")
	r.waitFor("y  allow once")
	r.waitFor("Notification for permission_prompt")
	r.waitFor("AgentWaiting for Write")
	r.press("y")
	r.waitFor("wrote it")
	r.press("Ctrl-r")
	r.waitFor("(y/n)")
	r.press("y")
	r.waitFor("SessionEnd for clear")
}
