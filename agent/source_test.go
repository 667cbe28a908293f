package agent

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestToolOutputIsFoundByItsCommand runs `seq 1 100000` as a scripted
// model would and finds its output in the vault by the command's name,
// and by "the last run of" it.
func TestToolOutputIsFoundByItsCommand(t *testing.T) {
	r := newRig(t, nil,
		providertest.ToolStep(call("c1", "shell", map[string]any{"command": "seq 1 100000"})),
		providertest.ToolStep(call("c2", "read_file", map[string]any{"path": "notes.txt"})),
		providertest.TextStep("done"))
	r.run("count to a hundred thousand")
	for _, q := range []string{"seq", "what did the last run of `seq 1 100000` print?"} {
		hits, err := r.vault.Search(q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Meta.Command != "seq 1 100000" || !strings.Contains(hits[0].Meta.Summary, "cmd=seq 1 100000") {
			t.Fatalf("search %q: %+v", q, hits)
		}
	}
}
