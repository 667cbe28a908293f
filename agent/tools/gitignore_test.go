package tools

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
)

func TestIgnoreMatch(t *testing.T) {
	tests := []struct {
		rules string
		dir   string // the .gitignore's directory
		path  string
		isDir bool
		want  bool
	}{
		{"*.log", "", "a.log", false, true},
		{"*.log", "", "deep/dir/a.log", false, true},
		{"*.log", "", "a.log.txt", false, false},
		{"*.log\n!keep.log", "", "keep.log", false, false},
		{"*.log\n!keep.log", "", "other.log", false, true},
		{"!keep.log\n*.log", "", "keep.log", false, true},
		{"build/", "", "build", true, true},
		{"build/", "", "build", false, false},
		{"build/", "", "src/build", true, true},
		{"/build", "", "build", true, true},
		{"/build", "", "src/build", true, false},
		{"doc/*.txt", "", "doc/a.txt", false, true},
		{"doc/*.txt", "", "doc/sub/a.txt", false, false},
		{"doc/*.txt", "", "x/doc/a.txt", false, false},
		{"**/logs", "", "logs", true, true},
		{"**/logs", "", "a/b/logs", true, true},
		{"**/logs/debug.log", "", "x/logs/debug.log", false, true},
		{"abc/**", "", "abc/x/y", false, true},
		{"abc/**", "", "abc", true, false},
		{"a/**/b", "", "a/b", false, true},
		{"a/**/b", "", "a/x/y/b", false, true},
		{"a/**/b", "", "xa/b", false, false},
		{"foo?.c", "", "foo1.c", false, true},
		{"foo?.c", "", "foo/.c", false, false},
		{"[abc].txt", "", "b.txt", false, true},
		{"[!abc].txt", "", "b.txt", false, false},
		{"[!abc].txt", "", "d.txt", false, true},
		{`\#hash`, "", "#hash", false, true},
		{`\!bang`, "", "!bang", false, true},
		{"# comment\n\n", "", "# comment", false, false},
		{"trailing   ", "", "trailing", false, true},
		{"*.tmp", "sub", "sub/x.tmp", false, true},
		{"*.tmp", "sub", "other/x.tmp", false, false},
		{"/only", "sub", "sub/only", false, true},
		{"/only", "sub", "only", false, false},
		{"x/y", "sub", "sub/x/y", false, true},
	}
	for _, tt := range tests {
		f := parseIgnore(tt.dir, []byte(tt.rules))
		_, got := f.match(tt.path, tt.isDir)
		if got != tt.want {
			t.Errorf("rules %q in %q, path %q (dir %v): ignored = %v, want %v", tt.rules, tt.dir, tt.path, tt.isDir, got, tt.want)
		}
	}
}

func TestWalkHonoursGitignore(t *testing.T) {
	env := newEnv(t, map[string]string{
		".gitignore":             "*.log\nbuild/\n/secret.txt\n!important.log\n",
		".git/config":            "[core]\n",
		".git/info/exclude":      "excluded.txt\n",
		"main.go":                "package main\n",
		"app.log":                "log\n",
		"important.log":          "keep\n",
		"secret.txt":             "s\n",
		"excluded.txt":           "x\n",
		"build/out.bin":          "b\n",
		"src/secret.txt":         "not anchored here\n",
		"src/.gitignore":         "*.gen.go\n!keep.gen.go\n",
		"src/a.go":               "package src\n",
		"src/a.gen.go":           "package src\n",
		"src/keep.gen.go":        "package src\n",
		"src/deep/b.gen.go":      "package deep\n",
		"src/deep/c.go":          "package deep\n",
		"other/x.gen.go":         "package other\n",
		"node/.gitignore":        "*\n!.gitignore\n",
		"node/module/index.js":   "x\n",
		"vendor/build/keep.go":   "package build\n",
		"vendor/build.go/file.c": "int x;\n",
	})
	walk := func(start string) []string {
		var got []string
		err := walkTree(context.Background(), env.Workspace, filepath.Join(env.Workspace, start), nil, func(rel string, _ fs.DirEntry) error {
			got = append(got, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := []string{
		".gitignore", "important.log", "main.go", "node/.gitignore",
		"other/x.gen.go", "src/.gitignore", "src/a.go", "src/deep/c.go",
		"src/keep.gen.go", "src/secret.txt", "vendor/build.go/file.c",
	}
	if got := walk("."); !slices.Equal(got, want) {
		t.Errorf("walk from root:\ngot  %v\nwant %v", got, want)
	}
	// Starting below the root still applies the parent's rules.
	if got := walk("src/deep"); !slices.Equal(got, []string{"src/deep/c.go"}) {
		t.Errorf("walk from src/deep: %v", got)
	}
	// An ignored directory asked for by name is walked.
	if got := walk("build"); !slices.Equal(got, []string{"build/out.bin"}) {
		t.Errorf("walk from build: %v", got)
	}
}
