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
	out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "/internal")
	if err == nil || !strings.Contains(err.Error(), "user_invocable = false") || strings.Contains(out, "session") {
		t.Fatalf("/internal: %q %v; want a refusal naming user_invocable = false, before any session", out, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a refused skill made %d requests", n)
	}
	if out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws, "/review main.go"); err != nil {
		t.Fatalf("/review: %q %v", out, err)
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
