package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/sandbox"
)

// TestBuiltKwsJailsAgentCommands: the kws users build runs an agent's
// shell command in a jail whose init is kws itself, started as
// kws-sandbox-init: the model's next request shows a PID namespace of the
// command's own, where the host's processes are not.
func TestBuiltKwsJailsAgentCommands(t *testing.T) {
	if !sandbox.Jailed() {
		t.Skip("commands do not run in namespaces here")
	}
	srv := providertest.New(t,
		providertest.Step{ToolCalls: []provider.ToolCall{{ID: "j1", Name: "shell",
			Arguments: `{"command":"tr '\\0' ' ' < /proc/1/cmdline; echo; echo procs=$(ls /proc | grep -c '^[0-9]')"}`}}},
		providertest.Step{Text: "jailed"})
	s := newSetup(t, srv.URL())
	out := s.must("", "run", "--yes", "--workspace", s.dirs["ws"], "where do you run")
	if !strings.Contains(out, "jailed") {
		t.Fatalf("kws run printed:\n%s", out)
	}
	var answer string
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				answer = m.Content
			}
		}
	}
	m := regexp.MustCompile(`procs=(\d+)`).FindStringSubmatch(answer)
	if !strings.Contains(answer, "kws-sandbox-init") || m == nil || len(m[1]) > 1 {
		t.Fatalf("the command is not in a jail of its own (its PID 1 and process count):\n%s", answer)
	}
}
