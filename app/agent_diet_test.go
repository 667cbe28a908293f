package app

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/config"
)

// TestDietSettingsPrecedence checks the order the diet settings layer in:
// the mode's preset, then config.toml's [diet], then the role's, then the
// session's flags.
func TestDietSettingsPrecedence(t *testing.T) {
	n := func(v int) *int { return &v }
	f := func(v float64) *float64 { return &v }
	roles := []skill.Skill{{Name: "thrifty", Role: true, Body: "Save.",
		Diet: config.Diet{Recent: n(4), CompactAt: f(0.7), CompactModel: config.CompactSidecar}}}
	spec := AgentSpec{Params: diet.Defaults(), Skills: roles, Role: "thrifty",
		Config: config.Config{Diet: config.Diet{TriggerTokens: n(30000), Recent: n(6), CompactAt: f(0.8)}},
		Diet:   config.Diet{TriggerTokens: n(1000)}}
	p, d, err := spec.dietSettings()
	if err != nil {
		t.Fatal(err)
	}
	if p.TriggerTokens != 1000 || p.Recent != 4 || p.MinBlockChars != diet.Defaults().MinBlockChars || p.Mode != diet.DefaultMode {
		t.Errorf("params = %+v; want the flag's trigger 1000, the role's recent 4, the preset's min block", p)
	}
	if *d.CompactAt != 0.7 || d.CompactModel != config.CompactSidecar {
		t.Errorf("compaction = %v, %q; want the role's 0.7 and sidecar", *d.CompactAt, d.CompactModel)
	}
	spec.Role = ""
	if p, d, _ = spec.dietSettings(); p.Recent != 6 || *d.CompactAt != 0.8 {
		t.Errorf("without the role: recent %d, compact_at %v; want the config's 6 and 0.8", p.Recent, *d.CompactAt)
	}
	spec.Diet = config.Diet{Recent: n(-1)}
	if _, _, err := spec.dietSettings(); err == nil || !strings.Contains(err.Error(), "diet.recent = -1") {
		t.Errorf("a bad session setting: err = %v", err)
	}
}

// TestSidecarCompactionNeedsASidecar checks that compact_model = "sidecar"
// is refused, before any session is made, for an agent without one.
func TestSidecarCompactionNeedsASidecar(t *testing.T) {
	data := t.TempDir()
	_, err := BuildAgent(AgentSpec{Name: "agent", DataDir: data, Workspace: t.TempDir(), Params: diet.Defaults(),
		Config: config.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Diet: config.Diet{CompactModel: config.CompactSidecar}}})
	if err == nil || !strings.Contains(err.Error(), "no sidecar") {
		t.Fatalf("Build = %v", err)
	}
}
