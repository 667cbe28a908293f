package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/skill"
)

// skillsIn loads the skills written under dir (slash path → content).
func skillsIn(t *testing.T, dir string, files map[string]string) []skill.Skill {
	t.Helper()
	writeFiles(t, dir, files)
	skills, errs := skill.Load(dir)
	if len(errs) > 0 {
		t.Fatalf("skill.Load: %v", errs)
	}
	return skills
}

func TestSkillToolInvokesAndHonoursFlags(t *testing.T) {
	skills := skillsIn(t, t.TempDir(), map[string]string{
		"review.md":  "+++\ndescription = \"Review a file\"\nargument_hint = \"[file]\"\n+++\nReview $0 carefully.",
		"deploy.md":  "+++\ndescription = \"Deploy to production\"\ndisable_model_invocation = true\n+++\nDeploy.",
		"explain.md": "+++\ndescription = \"Explain code\"\nuser_invocable = false\n+++\nExplain $ARGUMENTS.",
	})
	tool, ok := Skill(skills)
	if !ok {
		t.Fatal("Skill offered no tool")
	}
	desc := tool.Description()
	for _, want := range []string{"- review [file]: Review a file", "- explain: Explain code", "`name`", "`args`"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description does not contain %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "deploy") {
		t.Errorf("description lists a skill with disable_model_invocation:\n%s", desc)
	}
	env := newEnv(t, nil)
	run := func(args string) Result {
		t.Helper()
		res, err := tool.Run(context.Background(), env, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	checkResult(t, run(`{"name":"review","args":"main.go"}`), false, "Review main.go carefully.")
	// user_invocable = false keeps the user from /explain, not the model.
	checkResult(t, run(`{"name":"explain","args":"the loop"}`), false, "Explain the loop.")
	checkResult(t, run(`{"name":"deploy"}`), true, `no skill "deploy" you can run; the skills are: explain, review`)
	checkResult(t, run(`{"name":"nope"}`), true, "the skills are: explain, review")
	checkResult(t, run(`{"args":"x","bogus":1}`), true, "bogus")
	if _, ok := Skill(skills[:1]); ok { // deploy alone
		t.Error("Skill offered a tool for model-hidden skills only")
	}
}

func TestReadFileOpensAFolderSkillsFiles(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	writeFiles(t, outside, map[string]string{"secret.txt": "PRIVATE"})
	dir := filepath.Join(root, "skills")
	writeFiles(t, dir, map[string]string{"review/checklist.md": "- run the tests"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "review", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	skills := skillsIn(t, dir, map[string]string{"review/SKILL.md": "Follow the checklist."})
	tool, _ := Skill(skills)
	res, err := tool.Run(context.Background(), newEnv(t, nil), json.RawMessage(`{"name":"review"}`))
	if err != nil {
		t.Fatal(err)
	}
	listed := filepath.Join(skills[0].Dir, "checklist.md")
	if !strings.Contains(res.Text, listed) || strings.Contains(res.Text, "leak.txt") {
		t.Fatalf("expanded skill = %q, want it to list %s and not leak.txt", res.Text, listed)
	}
	env := newEnv(t, nil)
	checkResult(t, call(t, env, "read_file", map[string]any{"path": listed}), true, "escapes the workspace")
	env.ReadRoots = skill.Folders(skills)
	checkResult(t, call(t, env, "read_file", map[string]any{"path": listed}), false, "- run the tests")
	for _, p := range []string{filepath.Join(skills[0].Dir, "leak.txt"), filepath.Join(outside, "secret.txt"), skills[0].Dir + "/../../outside/secret.txt"} {
		res := call(t, env, "read_file", map[string]any{"path": p})
		if !res.IsError || strings.Contains(res.Text, "PRIVATE") {
			t.Errorf("read_file %s = %q, want a refusal", p, res.Text)
		}
	}
}
