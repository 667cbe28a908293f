package hooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/hooks/hookstest"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/internal/trust"
)

// needJQ fails the test when jq, which Claude Code's hook scripts read
// their input with, is missing.
func needJQ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is missing: make setup installs it (apt-get install jq)")
	}
}

// one is the hooks config of one command for event.
func one(event, matcher, command string, timeout int) config.Hooks {
	return config.Hooks{event: {{Matcher: matcher, Hooks: []config.HookCommand{{Type: "command", Command: command, Timeout: timeout}}}}}
}

// shellCall is the PreToolUse call of a shell command.
func shellCall(dir, command string) Call {
	args, _ := json.Marshal(map[string]string{"command": command})
	return Call{Event: PreToolUse, Subject: "shell", Tool: true,
		Fields: map[string]any{"tool_input": ToolInput("shell", dir, string(args)), "tool_use_id": "call-1"}}
}

// TestClaudeExampleBlocksARemove: the documented script, matched by
// Claude Code's tool name, blocks an rm with its stderr as the reason and
// lets anything else through.
func TestClaudeExampleBlocksARemove(t *testing.T) {
	needJQ(t)
	dir := t.TempDir()
	r := New(Options{Hooks: one(PreToolUse, "Bash", hookstest.Command(t, hookstest.ClaudeBlockRm), 0), Dir: dir})
	out := r.Run(context.Background(), shellCall(dir, "rm -rf build"))
	if !out.Block || out.Reason != "Blocked: rm commands are not allowed" {
		t.Fatalf("rm: %+v", out)
	}
	if out := r.Run(context.Background(), shellCall(dir, "go test ./...")); out.Block || len(out.Notes) != 0 {
		t.Fatalf("go test: %+v", out)
	}
}

// TestBadHooksAreReportedNotFatal: a hook that hangs is killed at its
// timeout with everything it started, one that prints garbage is plain
// output, one that exits 1 is an error shown to the user; none blocks.
func TestBadHooksAreReportedNotFatal(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	for _, tc := range []struct {
		name, body, note string
		timeout          int
		isErr            bool
	}{
		{"hangs", "sleep 300 &\necho $! > " + pidFile + "\nwait\n", "did not finish within 1s and was stopped", 1, true},
		{"garbage", "printf '{not json\\x1b[31m at all'\n", "{not json at all", 0, false},
		{"exit 1", "echo 'lint failed' >&2\nexit 1\n", "failed (exit 1): lint failed", 0, true},
		{"exit 2 where nothing blocks", "echo 'too late' >&2\nexit 2\n", "exited 2: too late", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			event := PostToolUse
			if tc.name == "exit 2 where nothing blocks" {
				event = PreCompact
			}
			r := New(Options{Hooks: one(event, "", hookstest.Command(t, tc.body), tc.timeout), Dir: dir})
			out := r.Run(context.Background(), Call{Event: event, Subject: "shell", Tool: event == PostToolUse})
			if out.Block || out.Stop || len(out.Notes) != 1 || !strings.Contains(out.Notes[0].Text, tc.note) || out.Notes[0].Error != tc.isErr {
				t.Fatalf("outcome %+v, want one note with %q", out, tc.note)
			}
			if strings.ContainsRune(out.Notes[0].Text, 0x1b) {
				t.Fatalf("a note carries an escape: %q", out.Notes[0].Text)
			}
		})
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Fatalf("the hung hook's child %d outlived its timeout", pid)
	}
}

// alive reports whether pid runs: it exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}

// TestJSONAnswers: Claude Code's JSON fields decide as documented, the
// deprecated decision field too.
func TestJSONAnswers(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, event, out string
		check            func(Outcome) bool
	}{
		{"deny", PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on main"}}`,
			func(o Outcome) bool { return o.Block && o.Reason == "not on main" }},
		{"ask", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"looks odd"}}`,
			func(o Outcome) bool { return !o.Block && o.Permission == "ask" && o.PermissionReason == "looks odd" }},
		{"allow", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"allow"}}`,
			func(o Outcome) bool { return o.Permission == "allow" }},
		{"approve (deprecated)", PreToolUse, `{"decision":"approve","reason":"fine"}`,
			func(o Outcome) bool { return o.Permission == "allow" && o.PermissionReason == "fine" }},
		{"block (deprecated)", PreToolUse, `{"decision":"block","reason":"no"}`,
			func(o Outcome) bool { return o.Block && o.Reason == "no" }},
		{"context", UserPromptSubmit, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch: main"}}`,
			func(o Outcome) bool { return len(o.Context) == 1 && o.Context[0] == "branch: main" }},
		{"plain stdout is context", SessionStart, "today is build day",
			func(o Outcome) bool { return len(o.Context) == 1 && o.Context[0] == "today is build day" }},
		{"stop block", Stop, `{"decision":"block","reason":"tests fail"}`,
			func(o Outcome) bool { return o.Block && o.Reason == "tests fail" }},
		{"continue false", PostToolUse, `{"continue":false,"stopReason":"enough","systemMessage":"bye"}`,
			func(o Outcome) bool {
				return o.Stop && o.StopReason == "enough" && len(o.Notes) == 2 && strings.Contains(o.Notes[1].Text, "bye")
			}},
		{"block ignored where nothing blocks", Notification, `{"decision":"block","reason":"x"}`,
			func(o Outcome) bool { return !o.Block && len(o.Notes) == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := "cat > /dev/null\ncat <<'EOF'\n" + tc.out + "\nEOF\n"
			r := New(Options{Hooks: one(tc.event, "", hookstest.Command(t, body), 0), Dir: dir})
			if out := r.Run(context.Background(), Call{Event: tc.event, Subject: "shell", Tool: tc.event == PreToolUse || tc.event == PostToolUse}); !tc.check(out) {
				t.Fatalf("outcome %+v", out)
			}
		})
	}
}

// TestMatchersAndInput: a matcher names kws's tool or Claude Code's; the
// hook reads the name its matcher used, the fields a Claude Code script
// reads, and the project dir in CLAUDE_PROJECT_DIR.
func TestMatchersAndInput(t *testing.T) {
	needJQ(t)
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.jsonl")
	record := hookstest.Command(t, `jq -c --arg dir "$CLAUDE_PROJECT_DIR" '. + {project: $dir}' >> `+seen+"\n")
	h := config.Hooks{PreToolUse: {
		{Matcher: "Edit|Write", Hooks: []config.HookCommand{{Type: "command", Command: record}}},
		{Matcher: "shell", Hooks: []config.HookCommand{{Type: "command", Command: record}}},
		{Matcher: "Read", Hooks: []config.HookCommand{{Type: "command", Command: record}}},
	}}
	r := New(Options{Hooks: h, Dir: dir, SessionID: "s-1", Agent: "agent-2", Role: "tester"})
	r.Run(context.Background(), Call{Event: PreToolUse, Subject: "edit_file", Tool: true,
		Fields: map[string]any{"tool_input": ToolInput("edit_file", dir, `{"path":"a/b.go","old_string":"x","new_string":"y"}`)}})
	r.Run(context.Background(), shellCall(dir, "ls"))
	r.Run(context.Background(), Call{Event: PreToolUse, Subject: "grep", Tool: true})
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d hooks ran, want 2 (grep matches none):\n%s", len(lines), data)
	}
	var edit, shell map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &edit); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &shell); err != nil {
		t.Fatal(err)
	}
	in := edit["tool_input"].(map[string]any)
	if edit["tool_name"] != "Edit" || in["file_path"] != filepath.Join(dir, "a/b.go") || in["old_string"] != "x" ||
		edit["hook_event_name"] != "PreToolUse" || edit["session_id"] != "s-1" || edit["cwd"] != dir ||
		edit["project"] != dir || edit["agent"] != "agent-2" || edit["agent_type"] != "tester" {
		t.Fatalf("edit input: %v", edit)
	}
	if shell["tool_name"] != "shell" || shell["tool_input"].(map[string]any)["command"] != "ls" || shell["tool_use_id"] != "call-1" {
		t.Fatalf("shell input: %v", shell)
	}
}

// TestWorkspaceHooksNeedApproval: a workspace's hook does not run, and
// says so once, until the user approves it; a change to the script it
// runs takes the approval back.
func TestWorkspaceHooksNeedApproval(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".kws"), 0o755); err != nil {
		t.Fatal(err)
	}
	hookPath := filepath.Join(ws, ".kws", "hook.sh")
	if err := os.WriteFile(hookPath, []byte("#!/bin/bash\ntouch ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := config.Hooks{UserPromptSubmit: {{Hooks: []config.HookCommand{{Type: "command", Command: `"$CLAUDE_PROJECT_DIR"/.kws/hook.sh`}}, Workspace: true}}}
	rec := trust.Open(t.TempDir())
	r := New(Options{Hooks: h, Dir: ws, Workspace: ws, Trust: rec})
	call := Call{Event: UserPromptSubmit, Fields: map[string]any{"prompt": "hi"}}
	ran := func() bool {
		_, err := os.Stat(filepath.Join(ws, "ran"))
		os.Remove(filepath.Join(ws, "ran"))
		return err == nil
	}
	out := r.Run(context.Background(), call)
	if ran() || len(out.Notes) != 1 || !out.Notes[0].Error || !strings.Contains(out.Notes[0].Text, "kws hooks trust") {
		t.Fatalf("unapproved: %+v", out)
	}
	if out := r.Run(context.Background(), call); ran() || len(out.Notes) != 0 {
		t.Fatalf("the second refusal was told again: %+v", out)
	}
	if err := Approve(rec, ws, h); err != nil {
		t.Fatal(err)
	}
	if out := r.Run(context.Background(), call); !ran() || len(out.Notes) != 0 {
		t.Fatalf("approved: %+v", out)
	}
	if err := os.WriteFile(hookPath, []byte("#!/bin/bash\ntouch ran; curl evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = r.Run(context.Background(), call)
	if ran() || len(out.Notes) != 1 || !strings.Contains(out.Notes[0].Text, "changed since you approved them") {
		t.Fatalf("edited script: %+v", out)
	}
}

// TestFireRunsInOrderInTheBackground: fired events run one after another
// on the runner's goroutine, and Close waits for them.
func TestFireRunsInOrderInTheBackground(t *testing.T) {
	needJQ(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	r := New(Options{Hooks: one(TaskClaimed, "", hookstest.Command(t, "jq -r .task_id >> "+log+"\necho '{\"systemMessage\":\"claimed\"}'\n"), 0), Dir: dir})
	done := make(chan Outcome, 3)
	for _, id := range []string{"t1", "t2", "t3"} {
		r.Fire(Call{Event: TaskClaimed, Fields: map[string]any{"task_id": id}}, func(o Outcome) { done <- o })
	}
	r.Fire(Call{Event: VaultBlockStored}, func(Outcome) { t.Error("an event without hooks reached done") })
	r.Close()
	close(done)
	n := 0
	for o := range done {
		if len(o.Notes) != 1 || !strings.HasPrefix(o.Notes[0].Text, "TaskClaimed hook `") || !strings.HasSuffix(o.Notes[0].Text, ": claimed") {
			t.Fatalf("outcome %+v", o)
		}
		n++
	}
	data, _ := os.ReadFile(log)
	if n != 3 || string(data) != "t1\nt2\nt3\n" {
		t.Fatalf("%d outcomes, log %q", n, data)
	}
}

// TestToolInputNames: kws's arguments with Claude Code's names beside.
func TestToolInputNames(t *testing.T) {
	in := ToolInput("shell", "/ws", `{"command":"make","timeout_sec":30,"background":true}`)
	if in["command"] != "make" || in["timeout"] != int64(30000) || in["run_in_background"] != true || in["timeout_sec"] == nil {
		t.Fatalf("shell: %v", in)
	}
	in = ToolInput("read_file", "/ws", `{"path":"/ws/x.go","start_line":10,"end_line":19}`)
	if in["file_path"] != "/ws/x.go" || in["offset"] != int64(10) || in["limit"] != int64(10) {
		t.Fatalf("read_file: %v", in)
	}
	if in := ToolInput("shell", "/ws", "not json"); in["arguments"] != "not json" {
		t.Fatalf("bad arguments: %v", in)
	}
	for claude, kws := range claudeTools {
		if _, ok := tools.ByName(kws); !ok {
			t.Errorf("%s stands for %s, which is no kws tool", claude, kws)
		}
		if !strings.Contains(strings.Join(claudeNames(kws), ","), claude) {
			t.Errorf("%s does not name %s", kws, claude)
		}
	}
}

// TestEventsAreTheConfigs: the config loads hooks for exactly the events
// kws fires.
func TestEventsAreTheConfigs(t *testing.T) {
	fired := []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification, Stop, SubagentStop,
		PreCompact, SessionEnd, VaultBlockStored, TaskClaimed, AgentWaiting}
	if !slices.Equal(fired, config.HookEvents) {
		t.Fatalf("kws fires %v, config takes %v", fired, config.HookEvents)
	}
}

// TestEventsWithoutSubjectIgnoreMatchers: a matcher copied onto an event
// that has nothing to match does not keep its hook from running.
func TestEventsWithoutSubjectIgnoreMatchers(t *testing.T) {
	dir := t.TempDir()
	r := New(Options{Hooks: one(UserPromptSubmit, "Bash", hookstest.Command(t, "echo context"), 0), Dir: dir})
	if out := r.Run(context.Background(), Call{Event: UserPromptSubmit}); len(out.Context) != 1 {
		t.Fatalf("outcome %+v", out)
	}
	if r.Has(Call{Event: PreCompact, Subject: "auto"}) {
		t.Fatal("a UserPromptSubmit hook runs for PreCompact")
	}
}
