package skill

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// symlink makes link point at target.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestLoadFolderSkills(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "skills")
	writeFiles(t, filepath.Join(dir, "review"), map[string]string{
		"SKILL.md":     "---\nname: review\ndescription: Review with the checklist\n---\nReview $ARGUMENTS with checklist.md.",
		"checklist.md": "- tests",
		".secret":      "hidden",
	})
	writeFiles(t, filepath.Join(dir, "review", "scripts"), map[string]string{"lint.sh": "echo lint"})
	writeFiles(t, filepath.Join(dir, "notaskill"), map[string]string{"README.md": "no SKILL.md here"})
	outside := filepath.Join(root, "outside")
	writeFiles(t, outside, map[string]string{"id_rsa": "PRIVATE", "SKILL.md": "escaped skill"})
	symlink(t, filepath.Join(outside, "id_rsa"), filepath.Join(dir, "review", "key"))
	symlink(t, outside, filepath.Join(dir, "escape"))
	symlink(t, filepath.Join(outside, "SKILL.md"), filepath.Join(dir, "linked", "SKILL.md"))

	skills, errs := Load(dir)
	if len(skills) != 1 || skills[0].Name != "review" {
		t.Fatalf("skills = %+v, want review alone", skills)
	}
	s := skills[0]
	realDir, _ := filepath.EvalSymlinks(filepath.Join(dir, "review"))
	if s.Dir != realDir || s.Path != filepath.Join(dir, "review", File) {
		t.Errorf("Dir, Path = %q, %q", s.Dir, s.Path)
	}
	if want := []string{"checklist.md", "scripts/lint.sh"}; !reflect.DeepEqual(s.Files, want) {
		t.Errorf("Files = %q, want %q (no hidden file, no link leading outside)", s.Files, want)
	}
	if len(errs) != 2 {
		t.Fatalf("errors = %v, want two (the escaping folder and the escaping SKILL.md)", errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), "leads outside") {
			t.Errorf("error %q does not say it leads outside", e)
		}
	}
	got := s.Invoke("main.go")
	for _, want := range []string{"Review main.go with checklist.md.", filepath.Join(realDir, "checklist.md"),
		filepath.Join(realDir, "scripts", "lint.sh"), "read_file"} {
		if !strings.Contains(got, want) {
			t.Errorf("Invoke = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "id_rsa") || strings.Contains(got, "key") {
		t.Errorf("Invoke lists a file outside the skill: %q", got)
	}
	if dirs := Folders(skills); !reflect.DeepEqual(dirs, []string{realDir}) {
		t.Errorf("Folders = %q", dirs)
	}
}

func TestLoadForRefusesFoldersLeadingOutside(t *testing.T) {
	root := t.TempDir()
	home, ws, elsewhere := filepath.Join(root, "config"), filepath.Join(root, "ws"), filepath.Join(root, "elsewhere")
	writeFiles(t, filepath.Join(home, "kws", "skills"), map[string]string{"mine.md": "user skill"})
	writeFiles(t, elsewhere, map[string]string{"evil.md": "from outside the workspace"})
	symlink(t, elsewhere, filepath.Join(ws, ".kws", "skills"))

	skills, errs := LoadFor(home, ws)
	if len(skills) != 1 || skills[0].Name != "mine" {
		t.Errorf("skills = %+v, want the user's alone", skills)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "leads outside "+ws) {
		t.Errorf("errors = %v, want one saying .kws/skills leads outside the workspace", errs)
	}
	if _, errs := LoadFor(filepath.Join(root, "none"), filepath.Join(root, "none2")); len(errs) != 0 {
		t.Errorf("missing folders: errors = %v, want none", errs)
	}
}

func TestExpandInput(t *testing.T) {
	skills := []Skill{
		{Name: "review", Body: "Review $0.", UserInvocable: true},
		{Name: "internal", Body: "x", Path: "/s/internal.md"},
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{"/review main.go", "Review main.go.", nil},
		{"  /review  ", "Review .", nil},
		{"/unknown thing", "", ErrUnknownSkill},
		{"//unknown thing", "/unknown thing", nil},
		{"  //review it  ", "/review it", nil},
		{"/usr/bin/env is odd", "/usr/bin/env is odd", nil},
		{"plain words", "plain words", nil},
		{"/internal", "", ErrNotUserInvocable},
	}
	for _, tt := range tests {
		got, err := ExpandInput(skills, tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ExpandInput(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := ExpandInput(skills, "/internal"); err == nil || !strings.Contains(err.Error(), "user_invocable = false") {
		t.Errorf("refusal %v does not say why", err)
	}
	if _, err := ExpandInput(skills, "/greet Bob"); err == nil || !strings.Contains(err.Error(), "/greet (skills: /review; /help lists the commands; start the line with // to send it as text)") {
		t.Errorf("an unknown skill's refusal %v does not list the skills and the way out", err)
	}
}
