package agent

import (
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

// findRecorder is the real vault, recording the queries Find is given.
type findRecorder struct {
	Vault
	queries *[]vault.Query
}

func (f findRecorder) Find(q vault.Query) ([]vault.Hit, error) {
	*f.queries = append(*f.queries, q)
	return f.Vault.(finder).Find(q)
}

// TestSearchAsksAsTheConversation checks the model's ctx_search names its
// asker (agent, session, conversation length), so "N messages ago" and
// "the last run of X" count in this conversation.
func TestSearchAsksAsTheConversation(t *testing.T) {
	var queries []vault.Query
	r := newRig(t, func(c *Config) {
		c.SessionID = "s-1"
		c.Vault = findRecorder{Vault: c.Vault, queries: &queries}
	},
		providertest.ToolStep(call("c1", "ctx_search", map[string]any{"query": "the last run of go test", "reason": "find it"})),
		providertest.TextStep("found"))
	r.run("what did go test print?")
	if len(queries) == 0 {
		t.Fatal("ctx_search did not reach Find")
	}
	q := queries[0]
	if q.Agent != "t" || q.Session != "s-1" || q.Now < 2 || q.Text != "the last run of go test" {
		t.Fatalf("ctx_search asked %+v, want agent t, session s-1 and the conversation's length", q)
	}
}
