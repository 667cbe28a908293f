package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/agent/hooks"
	"github.com/kwsdev/kws/agent/hooks/hookstest"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/vault"
)

// withHooks tunes a rig's agent to run hooks, each {event, matcher,
// command, timeout}, in its workspace.
func withHooks(t *testing.T, specs ...[4]string) func(*Config) {
	h := config.Hooks{}
	for _, s := range specs {
		timeout := 0
		if s[3] != "" {
			timeout = 1
		}
		h[s[0]] = append(h[s[0]], config.HookMatcher{Matcher: s[1], Hooks: []config.HookCommand{{Type: "command", Command: s[2], Timeout: timeout}}})
	}
	return func(c *Config) {
		c.Hooks = hooks.New(hooks.Options{Hooks: h, Dir: c.Workspace, Workspace: c.Workspace, Agent: c.Name})
	}
}

// hookNotes are the texts of the rig's EvHook events.
func (r *rig) hookNotes() []string {
	var out []string
	for _, e := range r.eventsOf(EvHook) {
		out = append(out, e.Text)
	}
	return out
}

// TestClaudePreToolUseHookBlocksTheShell: Claude Code's documented
// script, configured on Claude Code's tool name, blocks the model's rm in
// kws: the command does not run, and the model's next request carries the
// hook's stderr as the call's result.
func TestClaudePreToolUseHookBlocksTheShell(t *testing.T) {
	r := newRig(t, withHooks(t, [4]string{hooks.PreToolUse, "Bash", hookstest.Command(t, hookstest.ClaudeBlockRm)}),
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "rm -f go.sum; touch ran"})),
		providertest.ToolStep(call("c2", "shell", map[string]any{"command": "touch allowed"})),
		providertest.TextStep("done"))
	r.run("tidy up")
	m := r.lastMessage(1)
	if m.Role != "tool" || m.ToolCallID != "c1" || m.Content != "blocked by a PreToolUse hook: Blocked: rm commands are not allowed" {
		t.Fatalf("the model got %+v", m)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "ran")); err == nil {
		t.Fatal("the blocked command ran")
	}
	if _, err := os.Stat(filepath.Join(r.ws, "allowed")); err != nil {
		t.Fatalf("the next command did not run: %v", err)
	}
	if notes := r.hookNotes(); len(notes) != 1 || !strings.Contains(notes[0], "blocked it: Blocked: rm commands are not allowed") {
		t.Fatalf("notes %q", notes)
	}
}

// TestHookContextReachesTheModel: SessionStart's plain stdout and
// UserPromptSubmit's additionalContext ride with the user's turn.
func TestHookContextReachesTheModel(t *testing.T) {
	r := newRig(t, withHooks(t,
		[4]string{hooks.SessionStart, "startup", hookstest.Command(t, "echo 'the build server is down today'\n")},
		[4]string{hooks.UserPromptSubmit, "", hookstest.Command(t, `jq -c '{hookSpecificOutput: {hookEventName: "UserPromptSubmit", additionalContext: ("prompt was: " + .prompt)}}'`+"\n")}),
		providertest.TextStep("noted"), providertest.TextStep("again"))
	r.run("what now?")
	got := r.lastMessage(0).Content
	for _, want := range []string{"what now?", "<hook_context event=\"SessionStart\">\nthe build server is down today\n</hook_context>",
		"<hook_context event=\"UserPromptSubmit\">\nprompt was: what now?\n</hook_context>"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the request lacks %q:\n%s", want, got)
		}
	}
	r.run("and then?")
	if got := r.lastMessage(1).Content; strings.Contains(got, "SessionStart") || !strings.Contains(got, "prompt was: and then?") {
		t.Fatalf("the second turn: %s", got)
	}
}

// TestBlockedPromptNeverReachesTheModel: exit code 2 from
// UserPromptSubmit ends the turn with its stderr, before any request.
func TestBlockedPromptNeverReachesTheModel(t *testing.T) {
	r := newRig(t, withHooks(t, [4]string{hooks.UserPromptSubmit, "", hookstest.Command(t, "echo 'no secrets in prompts' >&2\nexit 2\n")}))
	_, err := r.a.Run(context.Background(), "my password is hunter2")
	if !errors.Is(err, ErrPromptBlocked) || !strings.Contains(err.Error(), "no secrets in prompts") {
		t.Fatalf("err %v", err)
	}
	if n := len(r.srv.Requests()); n != 0 || len(r.a.History()) != 0 {
		t.Fatalf("%d requests, history %+v", n, r.a.History())
	}
}

// TestPostToolUseSeesTheResponse: the hook reads the call's result in
// Claude Code's names, and its feedback joins the result the model reads.
func TestPostToolUseSeesTheResponse(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "post.json")
	r := newRig(t, withHooks(t, [4]string{hooks.PostToolUse, "Bash",
		hookstest.Command(t, "cat > "+seen+"\necho '{\"decision\":\"block\",\"reason\":\"lint it next\"}'\n")}),
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "echo hi; echo oops >&2"})),
		providertest.TextStep("done"))
	r.run("say hi")
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Event    string         `json:"hook_event_name"`
		Tool     string         `json:"tool_name"`
		Input    map[string]any `json:"tool_input"`
		Response map[string]any `json:"tool_response"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "PostToolUse" || in.Tool != "Bash" || in.Input["command"] != "echo hi; echo oops >&2" ||
		in.Response["stdout"] != "hi\n" || in.Response["stderr"] != "oops\n" || in.Response["exit_code"] != float64(0) ||
		in.Response["success"] != true || !strings.Contains(in.Response["output"].(string), "EXIT CODE: 0") {
		t.Fatalf("the hook read %s", data)
	}
	if m := r.lastMessage(1); !strings.HasSuffix(m.Content, "EXIT CODE: 0\n\n<hook_feedback event=\"PostToolUse\">\nlint it next\n</hook_feedback>") {
		t.Fatalf("the model got %q", m.Content)
	}
}

// TestBadHooksNeverFailTheTurn: a hook that hangs is killed at its
// timeout, one that prints garbage is plain output, one that exits 1 is
// an error shown; the call runs and the turn ends with its answer.
func TestBadHooksNeverFailTheTurn(t *testing.T) {
	r := newRig(t, withHooks(t,
		[4]string{hooks.PreToolUse, "", hookstest.Command(t, "sleep 300\n"), "1s"},
		[4]string{hooks.PreToolUse, "", hookstest.Command(t, "printf '\\x00{\"decision\": \\x1b]0;pwned\\x07'\n")},
		[4]string{hooks.PreToolUse, "", hookstest.Command(t, "echo 'cannot reach the linter' >&2\nexit 1\n")}),
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "touch ran"})),
		providertest.TextStep("all done"))
	if got := r.run("touch ran"); got != "all done" {
		t.Fatalf("answer %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "ran")); err != nil {
		t.Fatalf("the call did not run: %v", err)
	}
	notes := strings.Join(r.hookNotes(), "\n")
	for _, want := range []string{"did not finish within 1s and was stopped", ": {\"decision\":", "failed (exit 1): cannot reach the linter"} {
		if !strings.Contains(notes, want) {
			t.Fatalf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.ContainsAny(notes, "\x00\x1b\x07") || strings.Contains(notes, "pwned") {
		t.Fatalf("a note carries control characters: %q", notes)
	}
}

// TestStopHookMakesTheAgentGoOn: a Stop hook that blocks the first stop
// sends its reason to the model, which answers again; the second stop,
// with stop_hook_active set, ends the turn.
func TestStopHookMakesTheAgentGoOn(t *testing.T) {
	r := newRig(t, withHooks(t, [4]string{hooks.Stop, "", hookstest.Command(t,
		"if [ \"$(jq -r .stop_hook_active)\" = false ]; then echo 'run the tests first' >&2; exit 2; fi\n")}),
		providertest.TextStep("done"), providertest.TextStep("tests pass; done"))
	if got := r.run("fix it"); got != "tests pass; done" {
		t.Fatalf("answer %q", got)
	}
	if m := r.lastMessage(1); m.Role != "user" || m.Content != NoticePrefix+" a Stop hook does not let you stop yet: run the tests first" {
		t.Fatalf("the model got %+v", m)
	}
}

// TestPreToolUseAllowAndAsk: a user hook's "allow" runs a call the policy
// would ask about, its "ask" asks about one the policy allows.
func TestPreToolUseAllowAndAsk(t *testing.T) {
	allow := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"make is fine"}}`
	ask := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"reads secrets?"}}`
	tune := withHooks(t,
		[4]string{hooks.PreToolUse, "shell", hookstest.Command(t, "cat >/dev/null; echo '"+allow+"'\n")},
		[4]string{hooks.PreToolUse, "Read", hookstest.Command(t, "cat >/dev/null; echo '"+ask+"'\n")})
	r := newRig(t, func(c *Config) { tune(c); c.Broker = permission.NewBroker(permission.Unattended) },
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "touch ran"})),
		providertest.ToolStep(call("c2", "read_file", map[string]any{"path": "ran"})),
		providertest.TextStep("done"))
	r.run("go")
	if _, err := os.Stat(filepath.Join(r.ws, "ran")); err != nil {
		t.Fatalf("the allowed call did not run: %v", err)
	}
	perms := r.eventsOf(EvPermission)
	if len(perms) != 2 || perms[0].Decision != "allow" || perms[0].Text != "allowed by a PreToolUse hook: make is fine" ||
		perms[1].Decision != "deny" || perms[1].Text != permission.UnattendedReason {
		t.Fatalf("permissions %+v", perms)
	}
}

// fakeBoard is a task board whose every claim succeeds.
type fakeBoard struct{}

func (b fakeBoard) Agent() string                          { return "t" }
func (b fakeBoard) Add(string, string) (vault.Task, error) { return vault.Task{}, nil }
func (b fakeBoard) Claim(id string) (vault.Task, error) {
	return vault.Task{ID: id, Title: "write the tests", Owner: "t", Status: vault.TaskClaimed}, nil
}
func (b fakeBoard) Update(string, string, vault.TaskStatus) (vault.Task, error) {
	return vault.Task{}, nil
}
func (b fakeBoard) Done(string) (vault.Task, error) { return vault.Task{}, nil }
func (b fakeBoard) List() ([]vault.Task, error)     { return nil, nil }

// TestKwsEventsAndTheRestFire: an agent waiting for approval fires
// Notification and AgentWaiting, a claim TaskClaimed, a block the agent
// keeps VaultBlockStored, /compact PreCompact, the agent's end SessionEnd.
func TestKwsEventsAndTheRestFire(t *testing.T) {
	say := hookstest.Command(t, `jq -c '{systemMessage: ("saw " + .hook_event_name + " " + ((.notification_type // .tool_name // .task_id // .kind // .trigger // .reason) | tostring))}'`+"\n")
	var specs [][4]string
	for _, e := range []string{hooks.Notification, hooks.AgentWaiting, hooks.TaskClaimed, hooks.VaultBlockStored, hooks.PreCompact, hooks.SessionEnd} {
		specs = append(specs, [4]string{e, "", say})
	}
	tune := withHooks(t, specs...)
	broker := permission.NewBroker(permission.Interactive)
	answerInOrder(t, broker, permission.AllowOnce, permission.AllowOnce)
	var mu sync.Mutex
	var got []string
	r := newRig(t, func(c *Config) {
		tune(c)
		c.Broker, c.Board = broker, fakeBoard{}
		c.OnEvent = func(e Event) {
			if e.Type == EvHook {
				_, text, _ := strings.Cut(e.Text, "`: ")
				mu.Lock()
				got = append(got, text)
				mu.Unlock()
			}
		}
	},
		providertest.ToolStep(call("c1", "todo", map[string]any{"action": "claim", "id": 1})),
		providertest.ToolStep(call("c2", "shell", map[string]any{"command": "seq 1 40000"})),
		providertest.TextStep("done"),
		providertest.TextStep("1"), providertest.TextStep("2"), providertest.TextStep("3"), providertest.TextStep("4"))
	r.run("claim and count")
	for _, turn := range []string{"one", "two", "three", "four"} {
		r.run(turn)
	}
	if _, err := r.a.Compact(); err != nil {
		t.Fatal(err)
	}
	r.a.End("other")
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(got, "\n")
	for _, want := range []string{"saw TaskClaimed t1", "saw Notification permission_prompt", "saw AgentWaiting shell",
		"saw VaultBlockStored tool:shell STDOUT", "saw PreCompact manual", "saw SessionEnd other"} {
		if !strings.Contains(all, want) {
			t.Fatalf("no %q among the notes:\n%s", want, all)
		}
	}
	if !strings.HasSuffix(all, "saw SessionEnd other") {
		t.Fatalf("SessionEnd was not the last:\n%s", all)
	}
}
