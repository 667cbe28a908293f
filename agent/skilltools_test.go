package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/skill"
)

// TestModelInvokesASkill checks that the model reaches a skill through the
// skill tool, offered even on a direct-answer turn, and reads its
// expanded instructions; a skill with disable_model_invocation is neither
// listed nor run.
func TestModelInvokesASkill(t *testing.T) {
	skills := []skill.Skill{
		{Name: "review", Description: "Review a file", Body: "Check $0 for races.", UserInvocable: true},
		{Name: "deploy", Description: "Ship it", Body: "Deploy now.", DisableModelInvocation: true, UserInvocable: true},
	}
	r := newRig(t, func(c *Config) { c.Skills = skills },
		providertest.ToolStep(call("c1", "skill", map[string]any{"name": "review", "args": "main.go"})),
		providertest.ToolStep(call("c2", "skill", map[string]any{"name": "deploy"})),
		providertest.TextStep("done"))
	r.run("What is a goroutine?")
	reqs := r.srv.Requests()
	var desc string
	for _, s := range reqs[0].Tools {
		if s.Name == "skill" {
			desc = s.Description
		}
	}
	if !strings.Contains(desc, "- review: Review a file") || strings.Contains(desc, "deploy") {
		t.Fatalf("skill tool on the first call: %q, want review listed and deploy not", desc)
	}
	if m := r.lastMessage(1); m.Role != "tool" || !strings.Contains(m.Content, "Check main.go for races.") {
		t.Errorf("skill result: %+v", m)
	}
	if m := r.lastMessage(2); !strings.Contains(m.Content, `no skill "deploy"`) {
		t.Errorf("a model-hidden skill ran: %+v", m)
	}
}

// TestWebFetchAsksLikeShell checks that a web_fetch call waits for the
// user's approval, shows the URL it will fetch, and fetches nothing when
// denied.
func TestWebFetchAsksLikeShell(t *testing.T) {
	var hits atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "<p>page</p>")
	}))
	defer web.Close()
	broker := permission.NewBroker(permission.Interactive)
	asks := broker.Subscribe()
	r := newRig(t, func(c *Config) { c.Broker = broker },
		providertest.ToolStep(call("c1", "web_fetch", map[string]any{"url": web.URL + "/docs"})),
		providertest.TextStep("could not fetch"))
	got := make(chan permission.Request, 1)
	go func() {
		req := <-asks
		got <- req
		broker.Answer(req.ID, permission.Answer{Decision: permission.Deny, Reason: "not now"})
	}()
	if _, err := r.a.Run(context.Background(), "fetch the docs page"); err != nil {
		t.Fatal(err)
	}
	req := <-got
	if req.Tool != "web_fetch" || req.Preview != "GET "+web.URL+"/docs" {
		t.Errorf("approval asked for %q with preview %q", req.Tool, req.Preview)
	}
	if m := r.lastMessage(1); !strings.Contains(m.Content, "permission denied: not now") {
		t.Errorf("denial not sent to the model: %+v", m)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the page was fetched %d times after a denial", n)
	}
}

// TestAMalformedCallIsRefusedBeforeAsking checks a call whose preview
// fails (web_fetch of a file:// URL) is answered with the error at once:
// nobody is asked to approve a call that cannot run.
func TestAMalformedCallIsRefusedBeforeAsking(t *testing.T) {
	broker := permission.NewBroker(permission.Interactive)
	defer broker.Close() // ends the answering goroutine
	asks := broker.Subscribe()
	var asked atomic.Int32
	go func() {
		for req := range asks {
			asked.Add(1)
			broker.Answer(req.ID, permission.Answer{Decision: permission.Deny, Reason: "asked"})
		}
	}()
	r := newRig(t, func(c *Config) { c.Broker = broker },
		providertest.ToolStep(call("c1", "web_fetch", map[string]any{"url": "file:///etc/passwd"})),
		providertest.TextStep("no file URLs then"))
	if _, err := r.a.Run(context.Background(), "read /etc/passwd over the web"); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("asked %d times to approve a call that cannot run", n)
	}
	if m := r.lastMessage(1); !strings.Contains(m.Content, "is not an absolute http:// or https:// URL") {
		t.Errorf("the model was not told why: %+v", m)
	}
}
