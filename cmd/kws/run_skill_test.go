package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// TestRunExpandsSkills checks kws run's "/name args": a folder skill of
// the workspace runs expanded, its files listed; a skill marked
// user_invocable = false is refused before any request.
func TestRunExpandsSkills(t *testing.T) {
	runEnv(t)
	ws := t.TempDir()
	for name, text := range map[string]string{
		"review/SKILL.md":     "---\nname: review\ndescription: Review a file\n---\nReview $0 against checklist.md.",
		"review/checklist.md": "- tests pass",
		"internal.md":         "+++\nuser_invocable = false\n+++\nModel only.",
		"broken.md":           "+++\nno_such_key = 1\n+++\nnever loaded",
	} {
		path := filepath.Join(ws, ".kws", "skills", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := providertest.New(t, providertest.TextStep("reviewed"))
	// A mistyped skill is refused, naming the skills, not sent as a prompt.
	out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "/reveiw main.go")
	if err == nil || !strings.Contains(err.Error(), "no such skill: /reveiw (skills: /review") {
		t.Fatalf("/reveiw: %q %v; want a refusal listing /review", out, err)
	}
	out, err = run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "/internal")
	if err == nil || !strings.Contains(err.Error(), "user_invocable = false") || strings.Contains(out, "session") {
		t.Fatalf("/internal: %q %v; want a refusal naming user_invocable = false, before any session", out, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a refused skill made %d requests", n)
	}
	out, err = run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "/review main.go")
	if err != nil {
		t.Fatalf("/review: %q %v", out, err)
	}
	// A skill that does not load is named on stderr, not dropped silently.
	if !strings.Contains(out, "kws: skill not loaded:") || !strings.Contains(out, "broken.md") {
		t.Errorf("the broken skill is not reported: %q", out)
	}
	msgs := srv.Requests()[0].Messages
	turn := msgs[len(msgs)-1].Content
	realWS, _ := filepath.EvalSymlinks(ws)
	for _, want := range []string{"Review main.go against checklist.md.", filepath.Join(realWS, ".kws", "skills", "review", "checklist.md")} {
		if !strings.Contains(turn, want) {
			t.Errorf("the turn %q lacks %q", turn, want)
		}
	}
}
