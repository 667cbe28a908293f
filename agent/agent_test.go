package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// rig is one agent wired to a scripted OpenAI-compatible server, a real
// vault, a real session folder and a temporary workspace.
type rig struct {
	t      testing.TB
	srv    *providertest.Server
	vault  *vault.Vault
	sess   *transcript.Transcript
	a      *Agent
	ws     string
	mu     sync.Mutex
	events []Event
}

func newRig(t testing.TB, tune func(*Config), steps ...providertest.Step) *rig {
	t.Helper()
	r := &rig{t: t, srv: providertest.New(t, steps...), vault: vaulttest.MustOpen(t), ws: t.TempDir()}
	ws, err := filepath.EvalSymlinks(r.ws)
	if err != nil {
		t.Fatal(err)
	}
	r.ws = ws
	client, err := provider.New(provider.Config{BaseURL: r.srv.URL(), APIKey: "test-key", Model: "test-model",
		NativeTools: true, Sleep: func(time.Duration) {}})
	if err != nil {
		t.Fatal(err)
	}
	r.sess, err = transcript.Create(t.TempDir(), r.ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.sess.Close() })
	cfg := Config{Name: "t", Workspace: r.ws, Client: client, Model: "test-model",
		Profile: profile.Profile{ID: "test-model", ContextWindow: 128000, CompletionReserve: 4096},
		Diet:    diet.Defaults(), Vault: r.vault, Recorder: SessionRecorder(r.sess),
		Policy: permission.DefaultPolicy(), Broker: permission.NewBroker(permission.AutoAllow),
		OnEvent: func(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }}
	if tune != nil {
		tune(&cfg)
	}
	r.a, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) run(task string) string {
	r.t.Helper()
	out, err := r.a.Run(context.Background(), task)
	if err != nil {
		r.t.Fatalf("run %q: %v", task, err)
	}
	return out
}

func (r *rig) eventsOf(typ string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// lastMessage is the last message of request i.
func (r *rig) lastMessage(i int) provider.Message {
	reqs := r.srv.Requests()
	if i >= len(reqs) {
		r.t.Fatalf("only %d requests, want request %d", len(reqs), i)
	}
	m := reqs[i].Messages
	return m[len(m)-1]
}

func call(id, name string, args any) provider.ToolCall {
	raw, _ := json.Marshal(args)
	return provider.ToolCall{ID: id, Name: name, Arguments: string(raw)}
}

func TestPlainAnswer(t *testing.T) {
	r := newRig(t, nil, providertest.TextStep("A goroutine is a lightweight thread."))
	if got := r.run("What is a goroutine?"); got != "A goroutine is a lightweight thread." {
		t.Fatalf("answer %q", got)
	}
	req := r.srv.Requests()[0]
	if req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, "<ctx id=") {
		t.Fatal("system prompt lacks the ref decoder")
	}
	if len(req.Tools) >= len(r.a.cfg.Tools) {
		t.Fatalf("a direct question carried %d tool schemas, want only the core ones", len(req.Tools))
	}
	if len(r.eventsOf(EvTextDelta)) < 2 || len(r.eventsOf(EvDone)) != 1 {
		t.Fatal("answer was not streamed")
	}
	msgs := r.sess.Messages()
	if len(msgs) != 2 || msgs[1].Content != "A goroutine is a lightweight thread." {
		t.Fatalf("session transcript %+v", msgs)
	}
}

func TestToolCallThenAnswer(t *testing.T) {
	r := newRig(t, nil,
		providertest.ToolStep(call("c1", "read_file", map[string]any{"path": "notes.txt"})),
		providertest.TextStep("The notes say hello."))
	os.WriteFile(filepath.Join(r.ws, "notes.txt"), []byte("hello from the notes\n"), 0o644)
	r.run("read notes.txt and tell me what it says")
	m := r.lastMessage(1)
	if m.Role != "tool" || m.ToolCallID != "c1" || !strings.Contains(m.Content, "hello from the notes") {
		t.Fatalf("tool result sent back: %+v", m)
	}
}

func TestPageFaultsAnswerWithExactBytes(t *testing.T) {
	block := "exact evidence line 1\n\x00binary\xff tail\n"
	r := newRig(t, nil)
	id, err := r.vault.Put([]byte(block), vault.Meta{Kind: "tool:shell"})
	if err != nil {
		t.Fatal(err)
	}
	r.srv.Push(providertest.TextStep("I need the log.\n.ctx_get id="+id+" reason=see the exact failure"),
		providertest.ToolStep(call("c2", "ctx_get", map[string]any{"id": id, "reason": "again"})),
		providertest.TextStep("done"))
	r.run("why did the build fail?")
	want := diet.FormatExact(id, []byte(block))
	if got := r.lastMessage(1).Content; got != want {
		t.Fatalf("text page fault answer:\n got %q\nwant %q", got, want)
	}
	second := r.lastMessage(2)
	if second.Role != "tool" || !strings.Contains(second.Content, `repeated="true"`) {
		t.Fatalf("a repeated id in one turn must be answered by reference: %q", second.Content)
	}
	if len(r.eventsOf(EvPageFault)) != 2 || r.a.Totals().PageFaults != 1 {
		t.Fatalf("page faults: %d events, %d counted", len(r.eventsOf(EvPageFault)), r.a.Totals().PageFaults)
	}
}

func TestToolCallPageFault(t *testing.T) {
	r := newRig(t, nil)
	id, _ := r.vault.Put([]byte("the exact bytes"), vault.Meta{})
	r.srv.Push(providertest.ToolStep(call("c1", "ctx_get", map[string]any{"id": id})), providertest.TextStep("ok"))
	r.run("show me the exact log")
	if got := r.lastMessage(1).Content; got != diet.FormatExact(id, []byte("the exact bytes")) {
		t.Fatalf("ctx_get tool answer %q", got)
	}
}

func TestRetryAfter429AndCutStream(t *testing.T) {
	r := newRig(t, nil,
		providertest.Step{Status: 429, RetryAfter: "1"},
		providertest.Step{Text: "this partial answer will be cut off", CutAfter: 2},
		providertest.TextStep("the complete answer"))
	if got := r.run("What is 2+2?"); got != "the complete answer" {
		t.Fatalf("answer %q", got)
	}
	msgs := r.sess.Messages()
	if last := msgs[len(msgs)-1]; last.Content != "the complete answer" || len(msgs) != 2 {
		t.Fatalf("raw transcript after retries: %+v", msgs)
	}
	restarts := 0
	for _, e := range r.eventsOf(EvTextDelta) {
		if e.Restart {
			restarts++
		}
	}
	if restarts != 1 {
		t.Fatalf("%d restart deltas, want 1", restarts)
	}
}

func TestContextOverflowCompactsAndRetries(t *testing.T) {
	r := newRig(t, nil)
	for i := 0; i < 6; i++ {
		out := fmt.Sprintf("FAILED test_%d - AssertionError: boom %d\n", i, i) + strings.Repeat(fmt.Sprintf("log line %d\n", i), 300)
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("log%d.txt", i)), []byte(out), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("r", i), "read_file", map[string]any{"path": fmt.Sprintf("log%d.txt", i), "mode": "full"})),
			providertest.TextStep(fmt.Sprintf("I will fix test_%d next.", i)))
		r.run(fmt.Sprintf("read log%d.txt and fix the failure; never touch the public API", i))
	}
	before := len(r.srv.Requests())
	r.srv.Push(providertest.Step{Status: 400, ErrorBody: `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`},
		providertest.TextStep("fixed"))
	if got := r.run("now summarize what failed"); got != "fixed" {
		t.Fatalf("answer after compaction %q", got)
	}
	reqs := r.srv.Requests()
	if len(reqs) != before+2 {
		t.Fatalf("want exactly one retry, got %d requests", len(reqs)-before)
	}
	retry := reqs[len(reqs)-1].Messages
	var summary string
	for _, m := range retry {
		if strings.HasPrefix(m.Content, `<compaction untrusted="true"`) {
			summary = m.Content
		}
	}
	if summary == "" || !strings.Contains(summary, "AssertionError: boom") || !strings.Contains(summary, "ctx:") || !strings.Contains(summary, "never touch the public API") {
		t.Fatalf("compaction summary missing or not extractive: %q", summary)
	}
	if last := retry[len(retry)-1]; last.Content != "now summarize what failed" {
		t.Fatalf("current user turn changed: %q", last.Content)
	}
	if len(retry) >= len(reqs[before].Messages) {
		t.Fatal("compaction did not shorten the prompt")
	}
	if len(r.eventsOf(EvCompaction)) != 1 || len(r.sess.Messages()) < 26 {
		t.Fatal("compaction must be recorded and the raw transcript kept whole")
	}
}

func TestDeniedPermissionReachesTheModel(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Broker = permission.NewBroker(permission.Unattended) },
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "touch pwned"})),
		providertest.TextStep("I could not run it."))
	r.run("run touch pwned")
	m := r.lastMessage(1)
	if m.Role != "tool" || !strings.Contains(m.Content, "permission denied") {
		t.Fatalf("denial not sent to the model: %+v", m)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "pwned")); err == nil {
		t.Fatal("a denied command ran")
	}
}

func TestPathEscapesAreRefused(t *testing.T) {
	r := newRig(t, nil,
		providertest.ToolStep(call("c1", "read_file", map[string]any{"path": "../../etc/passwd"}),
			call("c2", "read_file", map[string]any{"path": "link/passwd"})),
		providertest.TextStep("refused"))
	os.Symlink("/etc", filepath.Join(r.ws, "link"))
	r.run("read ../../etc/passwd and link/passwd")
	for _, m := range r.srv.Requests()[1].Messages {
		if m.Role == "tool" && (strings.Contains(m.Content, "root:") || !strings.Contains(strings.ToLower(m.Content), "workspace")) {
			t.Fatalf("escape not refused: %q", m.Content)
		}
	}
}

// TestHundredMegabyteToolOutput runs a command that prints 100 MB: the
// whole output is vaulted exactly and the model gets a bounded excerpt
// that names the vault id.
func TestHundredMegabyteToolOutput(t *testing.T) {
	const size = 100_000_000
	r := newRig(t, nil,
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": fmt.Sprintf("yes 'line of build output' | head -c %d; echo 'error: linker failed' >&2", size)})),
		providertest.TextStep("the linker failed"))
	r.run("build it")
	m := r.lastMessage(1)
	if m.Role != "tool" || len(m.Content) > 128<<10 {
		t.Fatalf("tool result sent to the model is %d bytes", len(m.Content))
	}
	if !strings.Contains(m.Content, "error: linker failed") {
		t.Fatal("stderr lost")
	}
	refs := vault.ParseRefs(m.Content)
	var id string
	for _, ref := range refs {
		if meta, err := r.vault.Meta(ref.ID); err == nil && meta.Chars == size {
			id = ref.ID
		}
	}
	if id == "" {
		i := strings.Index(m.Content, "exact in the vault as ")
		if i < 0 {
			t.Fatalf("no vault id for the full output in %.300q", m.Content)
		}
		id = strings.Fields(m.Content[i+len("exact in the vault as "):])[0]
		id = strings.TrimSuffix(id, ";")
	}
	got, err := r.vault.Get(id)
	if err != nil || len(got) != size {
		t.Fatalf("full output in the vault: %d bytes, %v", len(got), err)
	}
	line := []byte("line of build output\n")
	for off := 0; off < size; off += len(line) * 997 {
		end := min(off+len(line), size)
		if string(got[off:end]) != string(line[:end-off]) {
			t.Fatalf("vaulted output differs at byte %d", off)
		}
	}
}

func TestProactiveCompactionAndRecordedOverflow(t *testing.T) {
	// Nothing is big enough for the diet: compaction alone keeps the
	// prompt in the window.
	small := func(c *Config) {
		c.Profile.ContextWindow, c.Profile.CompletionReserve = 9000, 1000
		c.Diet.MinBlockChars, c.Diet.Fold = 1<<30, false
	}
	r := newRig(t, small)
	for i := 0; i < 8; i++ {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("data row %d of file %d\n", i, i), 120)), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "mode": "full"})),
			providertest.TextStep("noted"))
		r.run(fmt.Sprintf("read f%d.txt", i))
	}
	var proactive *CompactionInfo
	for _, e := range r.eventsOf(EvCompaction) {
		if e.Compaction.Reason == "proactive" {
			proactive = e.Compaction
		}
	}
	if proactive == nil || proactive.AfterTokens >= proactive.BeforeTokens {
		t.Fatalf("no proactive compaction that shrank the prompt: %+v", r.eventsOf(EvCompaction))
	}
	// A current user turn bigger than the window is sent whole, and the
	// overflow is recorded with its size.
	huge := "please review this: " + strings.Repeat("the quick brown fox jumps over the lazy dog ", 1500)
	r.srv.Push(providertest.TextStep("reviewed"))
	r.run(huge)
	reqs := r.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if last[len(last)-1].Content != huge {
		t.Fatal("the current user turn was changed")
	}
	evs := r.eventsOf(EvCompaction)
	if o := evs[len(evs)-1].Compaction.Overflow; o <= 0 {
		t.Fatalf("overflow not recorded: %+v", evs[len(evs)-1].Compaction)
	}
}

// offers reports whether req offered the model tool name.
func offers(req providertest.RecordedRequest, name string) bool {
	for _, s := range req.Tools {
		if s.Name == name {
			return true
		}
	}
	return false
}

func TestToolExpandOffersMoreTools(t *testing.T) {
	r := newRig(t, nil,
		providertest.ToolStep(call("c1", "tool_expand", map[string]any{"names": []string{"shell"}, "reason": "need to run it"})),
		providertest.TextStep("ok"))
	r.run("What does uname say?")
	reqs := r.srv.Requests()
	if offers(reqs[0], "shell") || !offers(reqs[0], "tool_expand") || !offers(reqs[1], "shell") || offers(reqs[1], "write_file") {
		t.Fatalf("tool_expand did not add shell: first %d tools, second %d tools", len(reqs[0].Tools), len(reqs[1].Tools))
	}
}

// TestFailedTurnLeavesAValidTranscript cancels a turn while a tool call
// waits for approval; the next turn's request must still pair every tool
// call with a result.
func TestFailedTurnLeavesAValidTranscript(t *testing.T) {
	broker := permission.NewBroker(permission.Interactive)
	asks := broker.Subscribe()
	r := newRig(t, func(c *Config) { c.Broker = broker },
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "make deploy"})),
		providertest.TextStep("hello"))
	// The turn ends while it waits for the approval nobody gives.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-asks
		cancel()
	}()
	if _, err := r.a.Run(ctx, "deploy it"); err == nil {
		t.Fatal("a turn cancelled while it waited for approval succeeded")
	}
	r.run("hello again")
	msgs := r.srv.Requests()[1].Messages
	var roles []string
	for _, m := range msgs[1:] {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,user" || msgs[3].ToolCallID != "c1" {
		t.Fatalf("request after a failed turn: %v", roles)
	}
}

// TestResumeAnswersTheCutCall resumes a transcript whose last tool call
// has no result: the call is answered "interrupted", and the answer is
// published as its result, before the loop goes on.
func TestResumeAnswersTheCutCall(t *testing.T) {
	cut := call("c1", "read_file", map[string]any{"path": "x.go"})
	r := newRig(t, func(c *Config) {
		c.History = []provider.Message{{Role: "user", Content: "read x.go"}, {Role: "assistant", ToolCalls: []provider.ToolCall{cut}}}
	}, providertest.TextStep("picked up"))
	answer, resumed, err := r.a.Resume(context.Background())
	if err != nil || !resumed || answer != "picked up" {
		t.Fatalf("Resume = %q, %v, %v", answer, resumed, err)
	}
	res := r.eventsOf(EvToolResult)
	if len(res) != 1 || res[0].CallID != "c1" || res[0].Tool != "read_file" || !res[0].IsError || !strings.HasPrefix(res[0].Text, "interrupted:") {
		t.Fatalf("tool results published %+v", res)
	}
	if h := r.a.History(); len(h) != 4 || h[2].Content != res[0].Text {
		t.Fatalf("history after Resume %+v", h)
	}
	if _, resumed, err := r.a.Resume(context.Background()); resumed || err != nil {
		t.Fatalf("Resume after a complete turn = %v, %v", resumed, err)
	}
}

// TestPageInIsNeverCompacted pages in a block larger than the ingestion
// limit with the ctx_get tool: the model must get it whole.
func TestPageInIsNeverCompacted(t *testing.T) {
	r := newRig(t, nil)
	block := strings.Repeat("a line of the big vaulted build log\n", 900)
	id, _ := r.vault.Put([]byte(block), vault.Meta{})
	r.srv.Push(providertest.ToolStep(call("c1", "ctx_get", map[string]any{"id": strings.ToUpper(id)})), providertest.TextStep("ok"))
	r.run("show me the exact build log")
	if got := r.lastMessage(1).Content; got != diet.FormatExact(id, []byte(block)) {
		t.Fatalf("page-in of a %d-byte block arrived as %d bytes", len(block), len(got))
	}
}

func TestPinnedInstructionsStayInTheWorkspace(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "credentials")
	os.WriteFile(outside, []byte("aws_secret_access_key = TOPSECRET"), 0o600)
	ws := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "AGENTS.md"))
	os.Symlink("/dev/zero", filepath.Join(ws, "KWS.md"))
	if got := pinnedInstructions(ws); got != "" {
		t.Fatalf("pinned text from outside the workspace: %q", got)
	}
	os.Remove(filepath.Join(ws, "AGENTS.md"))
	os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Always run go vet."), 0o644)
	if got := pinnedInstructions(ws); !strings.Contains(got, "Always run go vet.") {
		t.Fatalf("workspace AGENTS.md not pinned: %q", got)
	}
}
