package skill

import (
	"strings"
	"testing"
)

func TestRolesAreBuiltInAndOverridable(t *testing.T) {
	mine, err := Parse("coder", "+++\nrole = true\nmodel = \"gpt-small\"\ndescription = \"our coder\"\n+++\nWrite Go like us.")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Parse("fix", "+++\ndescription = \"a skill, not a role\"\n+++\nFix it.")
	roles := Roles([]Skill{mine, plain})
	var names []string
	for _, r := range roles {
		names = append(names, r.Name)
	}
	if got := len(roles); got != 4 || names[0] != "coder" || names[3] != "tester" {
		t.Fatalf("roles %v", names)
	}
	if c, _ := Find(roles, "coder"); c.Model != "gpt-small" || c.Body != "Write Go like us." {
		t.Fatalf("the user's coder did not replace the built-in: %+v", c)
	}
	if p, _ := Find(roles, "planner"); !p.Role || p.Body == "" || p.UserInvocable {
		t.Fatalf("built-in planner %+v", p)
	}
}

// TestRoleDietSettings checks that a role's front matter carries diet
// settings in TOML and in YAML, and that a bad one is refused by name.
func TestRoleDietSettings(t *testing.T) {
	r, err := Parse("coder", "+++\nrole = true\n[diet]\ntrigger_tokens = 50000\ncompact_at = 0.7\n+++\nCode.")
	if err != nil || r.Diet.TriggerTokens == nil || *r.Diet.TriggerTokens != 50000 || *r.Diet.CompactAt != 0.7 {
		t.Fatalf("toml role diet = %+v, err %v", r.Diet, err)
	}
	y, err := Parse("tester", "---\nrole: true\ndiet:\n  recent: 4\n  compact_model: sidecar\n---\nTest.")
	if err != nil || y.Diet.Recent == nil || *y.Diet.Recent != 4 || y.Diet.CompactModel != "sidecar" {
		t.Fatalf("yaml role diet = %+v, err %v", y.Diet, err)
	}
	if _, err := Parse("bad", "+++\nrole = true\n[diet]\nrecent = -2\n+++\nx"); err == nil || !strings.Contains(err.Error(), "diet.recent = -2") {
		t.Fatalf("bad role diet: err = %v", err)
	}
	if _, err := Parse("bad", "+++\n[diet]\nrecnt = 2\n+++\nx"); err == nil || !strings.Contains(err.Error(), "diet.recnt") {
		t.Fatalf("misspelt role diet key: err = %v", err)
	}
}
