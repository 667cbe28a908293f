package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/tokens"
)

// wireCount counts a request as the server received it, independently of
// the agent: every message's content (system prompt with its decoder,
// memory hints, tool results) and frame, every tool call's id, name and
// arguments, every tool result's call id and every tool schema.
func wireCount(req providertest.RecordedRequest) int {
	tc := tokens.Default()
	n := diet.PromptOverheadTokens
	for _, s := range req.Tools {
		n += tc.Count(s.Name).Tokens + tc.Count(s.Description).Tokens + tc.Count(string(s.Parameters)).Tokens + specOverheadTokens
	}
	for _, m := range req.Messages {
		n += tc.Count(m.Content).Tokens + diet.MsgOverheadTokens
		if m.ToolCallID != "" {
			n += tc.Count(m.ToolCallID).Tokens
		}
		for _, c := range m.ToolCalls {
			n += tc.Count(c.ID).Tokens + tc.Count(c.Name).Tokens + tc.Count(c.Arguments).Tokens + callOverheadTokens
		}
	}
	return n
}

// contentsCount is what the agent counted before it counted the wire: the
// messages' contents and frames only.
func contentsCount(req providertest.RecordedRequest) int {
	n := diet.PromptOverheadTokens
	for _, m := range req.Messages {
		n += tokens.Default().Count(m.Content).Tokens + diet.MsgOverheadTokens
	}
	return n
}

// bulkyFile is a source file of about size bytes.
func bulkyFile(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "func handler%04d(w http.ResponseWriter, r *http.Request) { render(w, \"page %d\", r.URL.Query()) }\n", i, i)
	}
	return b.String()
}

// TestCountedTokensMatchTheWire writes a 140 KB file through write_file,
// works on, and checks for every call that the tokens the agent counted
// are those of the request body the server received (schemas, tool-call
// arguments, tool results, the decoder prompt and a memory hint included);
// that once the call is old its arguments go as a valid-JSON ref, which
// the strict server accepts and ctx_get resolves to the exact arguments;
// and that arguments the model botched are sent as valid JSON too.
func TestCountedTokensMatchTheWire(t *testing.T) {
	body := bulkyFile(140 << 10)
	args := call("w1", "write_file", map[string]any{"path": "server.go", "content": body}).Arguments
	sum := sha256.Sum256([]byte(args))
	argsID := "ctx:" + hex.EncodeToString(sum[:])[:12]
	mem := &recallMemory{hint: "<memory note=\"hints, not evidence\">\n- [preference] handlers live in server.go\n</memory>"}
	r := newRig(t, func(c *Config) { c.Memory = mem },
		providertest.ToolStep(call("w1", "write_file", map[string]any{"path": "server.go", "content": body})),
		providertest.ToolStep(provider.ToolCall{ID: "bad1", Name: "write_file", Arguments: `{"path":"x.go","content":"pack`}))
	for i := 0; i < 6; i++ {
		os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("n%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("note %d\n", i), 40)), 0o644)
		r.srv.Push(providertest.ToolStep(call(fmt.Sprint("r", i), "read_file", map[string]any{"path": fmt.Sprintf("n%d.txt", i), "mode": "full"})))
	}
	r.srv.Push(providertest.ToolStep(call("g1", "ctx_get", map[string]any{"id": argsID, "reason": "check what I wrote"})),
		providertest.TextStep("done"))
	r.run("write server.go with all the handlers, then read the notes")

	reqs := r.srv.Requests()
	diets := r.eventsOf(EvDiet)
	if len(reqs) != 10 || len(diets) != len(reqs) {
		t.Fatalf("%d requests, %d diet events, want 10 each", len(reqs), len(diets))
	}
	for i, req := range reqs {
		want, got := wireCount(req), diets[i].Diet.SentTokens
		if got != want {
			t.Errorf("call %d: counted %d tokens, the wire carried %d", i+1, got, want)
		}
		t.Logf("call %d: body %d bytes, counted %d tokens (contents only: %d)", i+1, len(req.Body), got, contentsCount(req))
	}
	second := reqs[1]
	if got := diets[1].Diet.SentTokens; got < len(second.Body)/8 || contentsCount(second) > got/4 {
		t.Errorf("call 2 sent %d bytes, counted %d tokens, contents only %d: the arguments are not counted", len(second.Body), got, contentsCount(second))
	}
	if !strings.Contains(reqs[0].Messages[1].Content, "handlers live in server.go") {
		t.Error("the memory hint was not sent")
	}

	var exact, ref, fixed bool
	for i, req := range reqs {
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				switch {
				case c.ID == "w1" && c.Arguments == args:
					exact = true
				case c.ID == "w1":
					var got struct {
						Ref  string         `json:"ctx_ref"`
						Kept map[string]any `json:"kept"`
					}
					if err := json.Unmarshal([]byte(c.Arguments), &got); err != nil || got.Ref != argsID || got.Kept["path"] != "server.go" {
						t.Fatalf("call %d: old arguments sent as %q", i+1, c.Arguments)
					}
					ref = true
				case c.ID == "bad1":
					fixed = json.Valid([]byte(c.Arguments)) && strings.Contains(c.Arguments, `\"content\":\"pack`)
				}
			}
		}
	}
	if !exact || !ref || !fixed {
		t.Fatalf("arguments sent exact while recent %v, as a ref once old %v, botched ones as valid JSON %v", exact, ref, fixed)
	}
	if before := diets[len(diets)-2].Diet; before.SentTokens*3 > diets[1].Diet.SentTokens {
		t.Errorf("with the arguments dieted the prompt is %d tokens, %d before", before.SentTokens, diets[1].Diet.SentTokens)
	}
	got := r.lastMessage(len(reqs) - 1)
	if want := diet.FormatExact(argsID, []byte(args)); got.Role != "tool" || got.Content != want {
		t.Fatalf("ctx_get of the arguments' ref answered %.200q", got.Content)
	}
}
