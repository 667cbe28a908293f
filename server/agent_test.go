package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/session"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/vault"
)

// TestBuildResolvesTheRoleModelsOwnProfile checks that an agent whose role
// names its own model talks to that model with that model's profile
// (window, reserve, timeout), records it in run.json, and that other
// agents keep the configured model's profile.
func TestBuildResolvesTheRoleModelsOwnProfile(t *testing.T) {
	skills := []skill.Skill{
		{Name: "thinker", Role: true, Model: "o3", Body: "Think hard."},
		{Name: "helper", Role: true, Body: "Help."},
	}
	for _, tc := range []struct {
		role, model string
	}{
		{"thinker", "o3"},
		{"helper", providertest.Model},
		{"", providertest.Model},
	} {
		t.Run(tc.role, func(t *testing.T) {
			srv := providertest.New(t, providertest.TextStep("done"))
			data := t.TempDir()
			v, err := vault.OpenDir(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			broker := permission.NewBroker(permission.Unattended)
			defer broker.Close()
			params, _ := diet.Preset("")
			a, err := Build(AgentSpec{Name: "agent-2", DataDir: data, Workspace: t.TempDir(), Role: tc.role, Skills: skills,
				Config: config.Config{BaseURL: srv.URL(), Model: providertest.Model, APIKey: "test-key"},
				Params: params, Vault: v, Broker: broker})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Session().Close()
			if _, err := a.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if req.Model != tc.model {
				t.Errorf("the request went to %q, want %q", req.Model, tc.model)
			}
			if sys := req.Messages[0].Content; tc.role != "" && !strings.Contains(sys, "# Your role: "+tc.role) {
				t.Errorf("the system prompt lacks the role: %q", sys[max(0, len(sys)-300):])
			}
			want := profile.Resolve(tc.model, srv.URL(), nil)
			if got := recordedProfile(t, a.Session()); got != want {
				t.Errorf("run.json profile %+v, want %+v", got, want)
			}
		})
	}
	if o3, def := profile.Resolve("o3", "", nil), profile.Fallback(); o3.ContextWindow == def.ContextWindow ||
		o3.CompletionReserve == def.CompletionReserve || o3.Timeout == def.Timeout {
		t.Fatalf("o3's profile %+v does not differ from the default's %+v", o3, def)
	}
}

// recordedProfile reads the profile in sess's run.json.
func recordedProfile(t *testing.T, sess *session.Session) profile.Profile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sess.Dir(), session.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Profile profile.Profile `json:"profile"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("run.json: %v: %s", err, data)
	}
	return run.Profile
}
