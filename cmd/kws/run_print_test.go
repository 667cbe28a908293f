package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// hostile carries a clipboard write (OSC 52), a window title (OSC 0), a
// screen clear (CSI 2J), a C1 CSI and a bell.
const hostile = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J\u009b31m\x07"

// terminalControl returns the index of the first escape, bell or other
// control character (newline and tab aside) in s, or -1.
func terminalControl(s string) int {
	return strings.IndexFunc(s, func(r rune) bool {
		return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0)
	})
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRunPrintsNoTerminalEscapes runs kws run against a server whose tool
// names, arguments, answer text and error bodies carry terminal escapes:
// nothing kws prints (stdout, stderr or the final error) may hold one, and
// the text around them is kept.
func TestRunPrintsNoTerminalEscapes(t *testing.T) {
	runEnv(t)
	repeat := func(st providertest.Step) []providertest.Step {
		st.RetryAfter = "0"
		out := make([]providertest.Step, 8)
		for i := range out {
			out[i] = st
		}
		return out
	}
	body := `{"error":{"message":` + jsonString("server says no"+hostile) + `,"type":"invalid_request_error"}}`
	cases := []struct {
		name  string
		steps []providertest.Step
		want  string
	}{
		{"tool name", []providertest.Step{
			providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "read_file" + hostile, Arguments: `{"path":` + jsonString("a"+hostile) + `}`}),
			providertest.TextStep("finished" + hostile),
		}, "\nfinished\n"},
		{"400", repeat(providertest.Step{Status: 400, ErrorBody: body}), "server says no"},
		{"401", repeat(providertest.Step{Status: 401, ErrorBody: body}), "server says no"},
		{"404", repeat(providertest.Step{Status: 404, ErrorBody: body}), "server says no"},
		{"429", repeat(providertest.Step{Status: 429, ErrorBody: body}), "server says no"},
		{"500 plain text", repeat(providertest.Step{Status: 500, ErrorBody: "server says no" + hostile + "\nmore"}), "server says no"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.New(t, tc.steps...)
			out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", t.TempDir(), "read a"+hostile)
			if i := terminalControl(out); i >= 0 {
				t.Errorf("output holds %q at %d: %q", out[i], i, out)
			}
			printed := out
			if err != nil {
				printed += err.Error()
				if terminalControl(err.Error()) >= 0 || strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one clean line: %q", err)
				}
			}
			if !strings.Contains(printed, tc.want) {
				t.Errorf("%q is missing from what was printed: %q", tc.want, printed)
			}
		})
	}
}

// TestRunDenialPointsToTheUserConfig runs a shell call with no one to
// approve it: the denial must point to --yes or the user's own config,
// never to the workspace's .kws/config.toml, which cannot allow tools.
func TestRunDenialPointsToTheUserConfig(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "shell", Arguments: `{"command":"touch x"}`}),
		providertest.TextStep("ok"))
	out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", t.TempDir(), "make x")
	if err != nil {
		t.Fatal(err)
	}
	denied := ""
	for line := range strings.Lines(out) {
		if strings.Contains(line, "denied:") {
			denied = line
		}
	}
	if !strings.Contains(denied, "--yes") || !strings.Contains(denied, "~/.config/kws/config.toml") || strings.Contains(denied, ".kws/config.toml") {
		t.Fatalf("denial line %q; want --yes and ~/.config/kws/config.toml, not .kws/config.toml", denied)
	}
	last := srv.Requests()[1].Messages
	if tool := last[len(last)-1]; tool.Role != "tool" || !strings.Contains(tool.Content, "~/.config/kws/config.toml") {
		t.Errorf("the model was told %q", tool.Content)
	}
}

// TestRunToolLinesShowTheCall checks kws run's log shows a call as the
// workstation's cards do, by its main argument, not as raw JSON.
func TestRunToolLinesShowTheCall(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t,
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path": "notes.txt", "offset": 1}`}),
		providertest.TextStep("read it"))
	out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", t.TempDir(), "read the notes")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "⏺ read_file  notes.txt\n") || strings.Contains(out, `{"path"`) {
		t.Errorf("the call is not shown by its path:\n%s", out)
	}
}

// TestRunSaysWhenItRetries: a model call that fails with a server error
// is retried, and kws run says so on its stream (which attempt, when,
// why) instead of waiting silently (issue 26, item 4).
func TestRunSaysWhenItRetries(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t, providertest.Step{Status: 500}, providertest.TextStep("answered after a retry"))
	out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", t.TempDir(), "hi")
	if err != nil || !strings.Contains(out, "kws: retrying 2/") || !strings.Contains(out, "500") || !strings.Contains(out, "answered after a retry") {
		t.Fatalf("kws run: %v\n%s", err, out)
	}
}

// TestRunSaysWhenItWaitsForApproval: a kws run task whose call waits in
// the workstation says so on stderr, naming where to approve it, and with
// --json as an approval line.
func TestRunSaysWhenItWaitsForApproval(t *testing.T) {
	var out, log strings.Builder
	p := newEventPrinter(&out, &log, false)
	p.waiting("agent-6", "ws", "shell")
	if got, want := log.String(), "kws: shell waits for approval in agent-6 (kws attach -t ws)\n"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
	out.Reset()
	p = newEventPrinter(&out, &log, true)
	p.waiting("agent-6", "ws", "shell")
	var line approvalLine
	if err := json.Unmarshal([]byte(out.String()), &line); err != nil || line != (approvalLine{Type: "approval", Agent: "agent-6", Session: "ws", Tool: "shell"}) {
		t.Errorf("--json line %q: %+v, %v", out.String(), line, err)
	}
}
