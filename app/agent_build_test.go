package app

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
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/agent/transcript"
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
			a := buildAgent(t, "agent-2", tc.role, skills,
				config.Config{BaseURL: srv.URL(), Model: providertest.Model, APIKey: "test-key"})
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

// buildAgent builds the agent name in a fresh data folder and workspace,
// in role with skills, configured by cfg; its vault, broker and session
// close when the test ends.
func buildAgent(t *testing.T, name, role string, skills []skill.Skill, cfg config.Config) *Agent {
	t.Helper()
	data := t.TempDir()
	v, err := vault.OpenDir(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	broker := permission.NewBroker(permission.Unattended)
	t.Cleanup(broker.Close)
	params, _ := diet.Preset("")
	a, err := BuildAgent(AgentSpec{Name: name, DataDir: data, Workspace: t.TempDir(), Role: role, Skills: skills,
		Config: cfg, Params: params, Vault: v, Broker: broker})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Session().Close() })
	return a
}

// recordedProfile reads the profile in sess's run.json.
func recordedProfile(t *testing.T, sess *transcript.Transcript) profile.Profile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sess.Dir(), transcript.RunFile))
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

// TestBuildSendsSamplingAndOffersTheSkillTool checks that the
// configuration's temperature and top_p reach the request, that a role's
// own settings win over them, and that the skills reach the model as the
// skill tool (listing only the skills it may invoke).
func TestBuildSendsSamplingAndOffersTheSkillTool(t *testing.T) {
	cold, warm, nucleus := 0.0, 0.7, 0.9
	skills := []skill.Skill{
		{Name: "precise", Role: true, Body: "Be exact.", Sampling: profile.Sampling{Temperature: &cold}},
		{Name: "review", Description: "Review a diff", Body: "Review.", UserInvocable: true},
		{Name: "deploy", Description: "Deploy", Body: "Deploy.", DisableModelInvocation: true},
	}
	for _, tc := range []struct {
		role        string
		temperature float64
	}{{"precise", cold}, {"", warm}} {
		t.Run("role "+tc.role, func(t *testing.T) {
			srv := providertest.New(t, providertest.TextStep("done"))
			a := buildAgent(t, "agent-1", tc.role, skills,
				config.Config{BaseURL: srv.URL(), Model: providertest.Model, Temperature: &warm, TopP: &nucleus})
			if _, err := a.Run(context.Background(), "fix the failing test in main.go"); err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if req.Temperature == nil || *req.Temperature != tc.temperature || req.TopP == nil || *req.TopP != nucleus {
				t.Errorf("temperature, top_p = %v, %v; want %v, %v", req.Temperature, req.TopP, tc.temperature, nucleus)
			}
			var desc string
			for _, tool := range req.Tools {
				if tool.Name == "skill" {
					desc = tool.Description
				}
			}
			if !strings.Contains(desc, "- review: Review a diff") || strings.Contains(desc, "deploy") {
				t.Errorf("skill tool description = %q, want review listed and deploy not", desc)
			}
			if got := recordedProfile(t, a.Session()); got.Temperature == nil || *got.Temperature != tc.temperature {
				t.Errorf("run.json profile sampling = %+v, want temperature %v", got.Sampling, tc.temperature)
			}
		})
	}
}
