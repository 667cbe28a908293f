package panes

import (
	"net"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/swarm"
)

// failingSwarm is a swarm of real agents whose model is at baseURL, each
// failed call retried retries times without waiting.
func failingSwarm(t *testing.T, baseURL string, retries int) *swarm.Swarm {
	t.Helper()
	return realSwarm(t, t.TempDir(), baseURL, retries, nil)
}

// closedURL is the base URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/v1"
}

// TestAgentPaneShowsEachFailureOnce runs turns that fail for real, an
// unreachable server, a server failing every retried attempt and a
// cancelled turn, and checks that each failure is one ✗ line.
func TestAgentPaneShowsEachFailureOnce(t *testing.T) {
	srv500 := providertest.New(t, providertest.Step{Status: 500}, providertest.Step{Status: 500}, providertest.Step{Status: 500})
	held, arrived, release := heldStep("never read")
	srvHeld := providertest.New(t, held)
	t.Cleanup(release) // before the server closes, which waits for its handlers
	for _, tc := range []struct {
		name, url, want string
		cancel          bool
	}{
		{"unreachable", closedURL(t), "✗ provider: server unreachable", false},
		{"retried", srv500.URL(), "✗ provider: giving up after 3 attempts", false},
		{"cancelled", srvHeld.URL(), "✗ cancelled", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := failingSwarm(t, tc.url, 2)
			events, stop := sw.Subscribe()
			defer stop()
			name := sw.Spawn()
			p := NewAgentPane(testEnv(), name, sw, func(string) error { return nil })
			if err := p.SendTask("hello"); err != nil {
				t.Fatal(err)
			}
			if tc.cancel {
				waitFor(t, arrived, "the model call")
				key(p, tcell.KeyCtrlC, 0, tcell.ModCtrl)
			}
			for _, e := range untilFinished(t, events, name) {
				p.OnEvent(e)
			}
			text := screenText(render(t, p, 200, 20))
			if strings.Count(text, "✗") != 1 || !strings.Contains(text, tc.want) || strings.Contains(text, "context canceled") {
				t.Fatalf("want one failure line %q:\n%s", tc.want, text)
			}
		})
	}
}

// TestAgentPaneToolCardsShowTheCommand checks what a tool card shows after
// the tool's name: the main argument, or compact JSON.
func TestAgentPaneToolCardsShowTheCommand(t *testing.T) {
	for _, tc := range []struct{ tool, args, want string }{
		{"shell", `{"command": "ls -la"}`, "ls -la"},
		{"shell", `{"command":"cat <<EOF\nhi\nEOF","timeout_sec":5}`, "cat <<EOF hi EOF"},
		{"read_file", `{"path":"auth/token.py","mode":"outline"}`, "auth/token.py"},
		{"write_file", `{"path":"out.txt","content":"hello\n"}`, "out.txt"},
		{"edit_file", `{"path":"a.go","old_string":"x","new_string":"y"}`, "a.go"},
		{"grep", `{"pattern":"TODO","path":"src"}`, "TODO  src"},
		{"grep", `{"pattern":"TODO"}`, "TODO"},
		{"ctx_get", `{"id":"ctx:5f2a9c1e7b3d","reason":"need it"}`, "ctx:5f2a9c1e7b3d"},
		{"ctx_search", `{"query":"auth failure"}`, "auth failure"},
		{"tool_expand", `{"names":["grep","todo"]}`, `["grep","todo"]`},
		{"todo", `{"action":"done","id":3}`, "done  3"},
		{"mcp_lookup", `{ "a": 1, "b": [1, 2] }`, `{"a":1,"b":[1,2]}`},
		{"shell", `{"cmd":"ls"}`, `{"cmd":"ls"}`},
		{"shell", `not json`, `not json`},
		{"shell", "{\"command\":\"echo \\u001b[2Jhi\"}", "echo hi"},
	} {
		if got := toolHead(tc.tool, tc.args, false); got != tc.want {
			t.Errorf("%s %s: shows %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	if got := toolHead("shell", `{"command":"`+strings.Repeat("x", 500)+`"}`, false); len(got) != maxCardArgs+len("…") {
		t.Errorf("a long command is not cut: %d bytes", len(got))
	}
	p, _, _ := newAgentPane(t)
	loop(p, agent.Event{Type: agent.EvToolCall, Tool: "shell", CallID: "c1", Args: `{"command": "ls -la"}`})
	loop(p, agent.Event{Type: agent.EvToolCall, Tool: "edit_file", CallID: "c2", Args: `{"path":"a.go","old_string":"x","new_string":"y"}`})
	text := screenText(render(t, p, 80, 10))
	if !strings.Contains(text, "◌ shell  ls -la\n") || !strings.Contains(text, "◌ edit_file  a.go\n") || strings.Contains(text, "{") {
		t.Fatalf("the cards do not show the command:\n%s", text)
	}
	key(p, tcell.KeyCtrlE, 0, tcell.ModCtrl) // expanded, the other arguments show too
	text = screenText(render(t, p, 80, 10))
	if !strings.Contains(text, `{"path":"a.go","old_string":"x","new_string":"y"}`) || strings.Contains(text, `{"command"`) {
		t.Fatalf("expanded cards:\n%s", text)
	}
}
