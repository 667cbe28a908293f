package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestWorkstationExpandsATypedSkill checks that "/name args" typed in an
// agent pane runs the workspace's folder skill expanded, as kws run does,
// and that a skill marked user_invocable = false is refused in the pane
// with its reason, nothing sent.
func TestWorkstationExpandsATypedSkill(t *testing.T) {
	r := newWSRigWith(t, 160, 48, true, func(ws string, _ *Flags) {
		for name, text := range map[string]string{
			"review/SKILL.md":     "---\ndescription: Review a file\n---\nReview $0 against checklist.md.",
			"review/checklist.md": "- tests pass",
			"internal.md":         "+++\nuser_invocable = false\n+++\nModel only.",
		} {
			path := filepath.Join(ws, ".kws", "skills", filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	r.typeText("/internal now")
	r.press("Enter")
	r.waitFor("user_invocable = false")
	if n := len(r.srv.Requests()); n != 0 {
		t.Fatalf("a refused skill made %d requests", n)
	}
	r.srv.Push(providertest.TextStep("reviewed it"))
	r.press("Ctrl-u")
	r.typeText("/review main.go")
	r.press("Enter")
	r.waitFor("reviewed it")
	msgs := r.srv.Requests()[0].Messages
	turn := msgs[len(msgs)-1].Content
	for _, want := range []string{"Review main.go against checklist.md.", filepath.Join(r.ws, ".kws", "skills", "review", "checklist.md")} {
		if !strings.Contains(turn, want) {
			t.Errorf("the agent's turn %q lacks %q", turn, want)
		}
	}
	var desc string
	for _, tool := range r.srv.Requests()[0].Tools {
		if tool.Name == "skill" {
			desc = tool.Description
		}
	}
	if !strings.Contains(desc, "- review: Review a file") {
		t.Errorf("the skill tool does not list review: %q", desc)
	}
}
