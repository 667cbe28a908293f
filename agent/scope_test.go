package agent

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

// answerer answers a broker's requests with the given decisions in order
// and keeps the requests it saw.
type answerer struct {
	mu   sync.Mutex
	seen []permission.Request
}

func answerInOrder(t *testing.T, b *permission.Broker, decisions ...permission.Decision) *answerer {
	a := &answerer{}
	reqs := b.Subscribe()
	go func() {
		for req := range reqs {
			a.mu.Lock()
			n := len(a.seen)
			a.seen = append(a.seen, req)
			a.mu.Unlock()
			d := permission.Deny
			if n < len(decisions) {
				d = decisions[n]
			}
			if err := b.Answer(req.ID, permission.Answer{Decision: d}); err != nil {
				t.Errorf("answer %s: %v", req.ID, err)
			}
		}
	}()
	t.Cleanup(b.Close)
	return a
}

func (a *answerer) requests() []permission.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.seen)
}

// TestSensitiveBlocksStayInTheirWorkspace: a sensitive block another
// workspace stored is neither listed by ctx_search nor served by ctx_get;
// one this workspace stored is served only after the user approves.
func TestSensitiveBlocksStayInTheirWorkspace(t *testing.T) {
	broker := permission.NewBroker(permission.Interactive)
	r := newRig(t, func(c *Config) { c.Broker = broker })
	user := answerInOrder(t, broker, permission.Deny, permission.AllowOnce)
	foreignText := "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
	ownText := "staging credentials for the deploy user\nDEPLOY_PASSWORD=hunter2hunter2\n"
	foreign, err := r.vault.Put([]byte(foreignText), vault.Meta{Kind: "file", Sensitive: true,
		Topics: []string{"credentials"}, Workspaces: []string{"/srv/unrelated-project"}})
	if err != nil {
		t.Fatal(err)
	}
	own, err := r.a.keep("file", []byte(ownText))
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.vault.Meta(own)
	if err != nil || !slices.Equal(m.Workspaces, []string{r.ws}) || !m.Sensitive {
		t.Fatalf("a block the agent stored has meta %+v (err %v), want sensitive and workspaces [%s]", m, err, r.ws)
	}
	r.srv.Push(
		providertest.ToolStep(call("s1", "ctx_search", map[string]any{"query": "credentials password secret"})),
		providertest.TextStep(".ctx_get id="+foreign+" reason=need the key"),
		providertest.ToolStep(call("g1", "ctx_get", map[string]any{"id": own, "reason": "deploy"})),
		providertest.ToolStep(call("g2", "ctx_get", map[string]any{"id": own, "reason": "deploy, please"})),
		providertest.TextStep("done"))
	r.run("deploy to staging")

	search := r.lastMessage(1).Content
	if strings.Contains(search, foreign) || !strings.Contains(search, own) {
		t.Fatalf("ctx_search must list this workspace's block %s and hide the other's %s:\n%s", own, foreign, search)
	}
	steps := []struct{ name, want, secret string }{
		{"other workspace's block", "stored by another workspace", "wJalr"},
		{"denied", "not served: the user denied", "hunter2"},
	}
	for i, s := range steps {
		got := r.lastMessage(2 + i).Content
		if !strings.Contains(got, s.want) || strings.Contains(got, s.secret) {
			t.Errorf("%s: answer %q, want %q and no secret", s.name, got, s.want)
		}
	}
	if got := r.lastMessage(4).Content; got != diet.FormatExact(own, []byte(ownText)) {
		t.Errorf("approved get: %q, want the exact block", got)
	}
	reqs := user.requests()
	if len(reqs) != 2 {
		t.Fatalf("the user was asked %d times, want twice (never for the other workspace's block): %+v", len(reqs), reqs)
	}
	for _, req := range reqs {
		if req.Tool != "ctx_get" || !strings.Contains(req.Preview, own) || !strings.Contains(req.Preview, "SENSITIVE") {
			t.Errorf("approval request %+v does not show what is sent", req)
		}
	}
}
