package skill

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/profile"
)

func ptr(f float64) *float64 { return &f }

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    Skill
		wantErr string
	}{
		{
			name: "full front matter",
			text: "+++\nname = \"review\"\ndescription = \"Review the staged diff\"\nuser_invocable = false\n" +
				"disable_model_invocation = true\n+++\n\nReview $ARGUMENTS.\n\n",
			want: Skill{Name: "review", Description: "Review the staged diff", Body: "Review $ARGUMENTS.",
				DisableModelInvocation: true},
		},
		{
			name: "defaults",
			text: "+++\n+++\nBody",
			want: Skill{Name: "file", Body: "Body", UserInvocable: true},
		},
		{
			name: "CRLF, BOM and spaces after fences",
			text: "\ufeff+++ \r\ndescription = \"d\"\r\n+++\t\r\n  indented\r\n",
			want: Skill{Name: "file", Description: "d", Body: "  indented", UserInvocable: true},
		},
		{
			name: "no front matter is all body",
			text: "Just do it.\n+++\nname = \"x\"\n+++\n",
			want: Skill{Name: "file", Body: "Just do it.\n+++\nname = \"x\"\n+++", UserInvocable: true},
		},
		{
			name: "fence must be alone on the first line",
			text: "+++ name = \"x\"\n+++\nb",
			want: Skill{Name: "file", Body: "+++ name = \"x\"\n+++\nb", UserInvocable: true},
		},
		{
			name: "only a bare fence line closes",
			text: "+++\ndescription = \"\"\"\n+++ x\"\"\"\n+++\nb",
			want: Skill{Name: "file", Description: "+++ x", Body: "b", UserInvocable: true},
		},
		{
			name: "YAML front matter as in Claude Code's SKILL.md",
			text: "---\nname: review\ndescription: Review a diff\nargument-hint: \"[file]\"\nuser-invocable: false\n" +
				"disable-model-invocation: true\nallowed-tools: Read, Grep\nlicense: MIT\n---\nReview $0.",
			want: Skill{Name: "review", Description: "Review a diff", ArgumentHint: "[file]", Body: "Review $0.",
				DisableModelInvocation: true},
		},
		{
			name: "YAML flags spelt with underscores",
			text: "---\nuser_invocable: true\ndisable_model_invocation: true\n---\nb",
			want: Skill{Name: "file", Body: "b", UserInvocable: true, DisableModelInvocation: true},
		},
		{
			name: "role sampling",
			text: "+++\nrole = true\ntemperature = 0.0\ntop_p = 0.5\n+++\nb",
			want: Skill{Name: "file", Body: "b", UserInvocable: true, Role: true,
				Sampling: profile.Sampling{Temperature: ptr(0.0), TopP: ptr(0.5)}},
		},
		{name: "YAML unknown key", text: "---\ndisable-model-invokation: true\n---\nb", wantErr: `unknown key "disable-model-invokation"`},
		{name: "YAML flag spelt both ways", text: "---\nuser-invocable: false\nuser_invocable: true\n---\nb", wantErr: "already defined"},
		{name: "YAML missing closing fence", text: "---\nname: x\nbody", wantErr: "no closing ---"},
		{name: "temperature out of range", text: "+++\ntemperature = 9.0\n+++\nb", wantErr: "between 0 and 2"},
		{name: "missing closing fence", text: "+++\nname = \"x\"\nbody", wantErr: "no closing +++"},
		{name: "bad TOML", text: "+++\nname = x\n+++\nb", wantErr: "front matter: toml"},
		{name: "wrong type", text: "+++\nuser_invocable = \"yes\"\n+++\nb", wantErr: "front matter"},
		{name: "unknown key", text: "+++\ndisable_model_invokation = true\n+++\nb", wantErr: `unknown key "disable_model_invokation"`},
		{name: "invalid name", text: "+++\nname = \"two words\"\n+++\nb", wantErr: "invalid skill name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("file", tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	user, ws := filepath.Join(root, "user"), filepath.Join(root, "ws")
	writeFiles(t, user, map[string]string{
		"review.md":  "user review",
		"commit.md":  "+++\ndescription = \"Commit\"\n+++\nuser commit",
		"broken.md":  "+++\nname = \n+++\n",
		"notes.txt":  "not a skill",
		".hidden.md": "hidden",
	})
	if err := os.Mkdir(filepath.Join(user, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{
		"review.md": "workspace review",
		"a.md":      "+++\nname = \"dup\"\n+++\nfirst",
		"b.md":      "+++\nname = \"dup\"\n+++\nsecond",
	})

	skills, errs := Load(user, filepath.Join(root, "missing"), ws)
	var names []string
	for _, s := range skills {
		names = append(names, s.Name+"="+s.Body)
	}
	if got, want := strings.Join(names, " "), "commit=user commit dup=first review=workspace review"; got != want {
		t.Errorf("skills = %s, want %s", got, want)
	}
	if len(errs) != 2 {
		t.Fatalf("errors = %v, want two", errs)
	}
	if !strings.Contains(errs[0].Error(), filepath.Join(user, "broken.md")) {
		t.Errorf("error %q does not name broken.md", errs[0])
	}
	if !strings.Contains(errs[1].Error(), filepath.Join(ws, "b.md")) || !strings.Contains(errs[1].Error(), "a.md") {
		t.Errorf("error %q does not name both duplicate files", errs[1])
	}
	if s, ok := Find(skills, "review"); !ok || s.Path != filepath.Join(ws, "review.md") {
		t.Errorf("Find(review) = %+v, %v", s, ok)
	}
	if _, ok := Find(skills, "broken"); ok {
		t.Error("broken skill was loaded")
	}
}

func TestModelList(t *testing.T) {
	skills := []Skill{
		{Name: "commit", Description: "Write the\n  commit message"},
		{Name: "secret", Description: "hidden", DisableModelInvocation: true},
		{Name: "plain"},
		{Name: "long", Description: strings.Repeat("x", 200)},
	}
	want := "- commit: Write the commit message\n- plain\n- long: " + strings.Repeat("x", 159) + "…\n"
	if got := ModelList(skills); got != want {
		t.Errorf("ModelList =\n%s\nwant\n%s", got, want)
	}
	if got := ModelList(skills[1:2]); got != "" {
		t.Errorf("ModelList(only hidden) = %q, want empty", got)
	}
}
