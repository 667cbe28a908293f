package skill

import "testing"

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
